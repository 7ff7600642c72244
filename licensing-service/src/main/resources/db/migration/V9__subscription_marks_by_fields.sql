-- A subscription's events are ordered among those that write the same fields of the license: its paid plan
-- (PlanUpgraded, a PlanDowngraded that takes effect at once), its pending downgrade (PlanDowngraded for later;
-- an upgrade clears it) and billing's suspension of it (SubscriptionSuspended, SubscriptionResumed). A paid
-- period only moves forward and an end is final, whatever the order. So an event dead-lettered and redriven
-- after later events of its subscription is applied where those touched other fields, where one mark for the
-- whole subscription skipped it.
alter table license
    add column plan_event_at timestamptz,
    add column plan_event_sequence bigint not null default 0,
    add column pending_plan_event_at timestamptz,
    add column pending_plan_event_sequence bigint not null default 0,
    add column suspension_event_at timestamptz,
    add column suspension_event_sequence bigint not null default 0;
-- What a license applied so far was ordered by the one mark: each group starts from it.
update license set plan_event_at = subscription_event_at, plan_event_sequence = subscription_event_sequence,
    pending_plan_event_at = subscription_event_at, pending_plan_event_sequence = subscription_event_sequence,
    suspension_event_at = subscription_event_at, suspension_event_sequence = subscription_event_sequence
    where subscription_event_at is not null;
