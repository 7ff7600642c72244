-- When the renewal rules next have something to do with a subscription (charge, retry, or end it):
-- written with every change (Subscription.renewalDueAt), so the renewal scan reads this index only.
alter table subscription add column renewal_due_at timestamptz;
create index subscription_renewal_due on subscription (renewal_due_at) where renewal_due_at is not null;

-- The renewal scan is one item of the work queue that puts itself back in line after each run: one
-- replica scans at a time, and a scan that dies is taken over when its lease runs out.
insert into work_item (queue, item_key, payload, due_at, ready_at, created_at)
values ('renewal-scan', 'scan', '{}'::jsonb, now(), now(), now())
on conflict (queue, item_key) do nothing;
