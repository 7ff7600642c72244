-- Refunds the reconciliation failed as "never arrived" before V10 were put under no watch, yet the gateway
-- can still execute their cancels. Watched from now on, within the stray-charge horizon of their failure
-- (billing.reconciliation.stray-watch, 7 days by default: a migration cannot read the setting).
insert into refund_watch (refund_id, payment_key, status, reason, next_look_at, watch_until, created_at)
select r.id, p.external_payment_key, 'WATCHING', r.failure_message, now(), r.resolved_at + interval '7 days', now()
from refund r
join invoice i on i.id = r.invoice_id
join payment p on p.id = i.payment_id
where r.status = 'FAILED'
  and r.failure_message = 'the gateway has no cancel for this refund: it never arrived'
  and r.resolved_at > now() - interval '7 days'
  and p.external_payment_key is not null
on conflict (refund_id) do nothing;
