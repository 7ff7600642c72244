-- A renewal's attempt is sent (again) as stored by its renewal's tries until the gateway answers it with
-- anything but "nothing was done" (a 500 or a 429) or no connection at all. Reconciliation rolls such an
-- attempt back, and puts its renewal's step back in line, once the gateway has no trace of it and no try
-- of its renewal is to come (the subscription suspended or changed since), instead of failing it into dunning;
-- a canceled subscription's is failed as before, and watched as a stray charge.
alter table payment add column kept_for_resend boolean not null default false;
-- Renewal attempts in flight now were stored before the mark: the rule above holds for them as well (the
-- gateway's "no trace" decides either way; only dunning for a charge never made is spared).
update payment set kept_for_resend = true
    where status = 'IN_PROGRESS' and purpose = 'PERIOD' and period > 0 and external_payment_key is null;
