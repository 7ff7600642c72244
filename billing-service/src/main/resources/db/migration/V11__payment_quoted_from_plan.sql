-- An upgrade's payment records the plan the subscription was on when the upgrade was quoted: the charge
-- is for that plan's difference to the new one, and a success finding the subscription on another plan
-- is refused (refunded by the service) instead of upgrading from a plan it was not priced for. Its
-- purpose (UPGRADE_<plan>) and idempotency key name only the new plan. Null for the other purposes.
alter table payment add column quoted_from_plan varchar(16) references plan (code);
-- Upgrades in flight now were quoted before it was recorded: the subscription's plan now is what their
-- settlement would have used.
update payment p set quoted_from_plan = s.plan_code from subscription s
    where s.id = p.subscription_id and p.purpose like 'UPGRADE\_%' and p.status = 'IN_PROGRESS';
