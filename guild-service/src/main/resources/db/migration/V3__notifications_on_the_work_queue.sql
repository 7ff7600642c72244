-- Notifications move from their own table (integration_outbox, whose name did not say what it held)
-- to the platform work queue: queue 'discord-dm', keyed by the id of the event that caused the
-- message. The payload gains the event's type and aggregate, which were columns.
insert into work_item (queue, item_key, payload, status, attempts, due_at, ready_at, lease_until, last_error, created_at, finished_at)
select 'discord-dm',
       outbox_id::text,
       payload || jsonb_build_object('event_type', event_type, 'aggregate_type', aggregate_type, 'aggregate_id', aggregate_id),
       case status when 'completed' then 'done' when 'dead_letter' then 'dead' when 'processing' then 'leased' else 'pending' end,
       attempts,
       next_attempt_at,
       created_at,
       case when status = 'processing' then coalesce(locked_until, now()) end,
       last_error,
       created_at,
       case when status in ('completed', 'dead_letter') then coalesce(completed_at, next_attempt_at) end
from integration_outbox
where target_provider = 'discord';

drop table integration_outbox;
