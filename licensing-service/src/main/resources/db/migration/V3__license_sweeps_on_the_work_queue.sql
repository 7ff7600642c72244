-- The sweeper now works from the platform work queue ('license-sweep', one item per license, due when
-- the sweep would change it). Licenses that may need a sweep get their item here, due at the earliest
-- moment that could matter; the sweeper puts an item that is early back in line for its exact time.
insert into work_item (queue, item_key, payload, due_at, ready_at, created_at)
select 'license-sweep', license_id::text, '{}'::jsonb, due, due, now()
from (select license_id, least(pending_plan_at, case when paid_plan is not null and not expired then expires_at end) as due
      from license) candidates
where due is not null;
