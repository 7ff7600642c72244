-- The tries that failed for the item's own reason, apart from all its tries (attempts, which set the
-- backoff): an outage's rounds never count towards max-attempts, so a failure after a long outage is
-- not taken for the last one.
alter table work_item add column failures integer not null default 0;
