-- When the latest subscription event applied to a license committed, on billing's database clock (Debezium's
-- source.ts_ms), where its record said so: a guild's old and new subscriptions are ordered by it, not by the
-- clocks of the billing replicas that wrote them. Null for marks written before, and for records without a
-- source block; those compare by the time the events occurred, as before.
alter table license add column subscription_event_committed_at timestamptz;
