-- A charge that succeeds for a subscription that can no longer use it is given back by the service
-- itself: its refund is stored SCHEDULED in the transaction that settles the charge (the whole invoice
-- reserved, so no other refund can overlap it) and sent by the job of work queue "automatic-refunds".
alter table refund drop constraint refund_status_check;
alter table refund add constraint refund_status_check check (status in ('SCHEDULED', 'IN_PROGRESS', 'SUCCEEDED', 'FAILED'));
create index refund_scheduled on refund (created_at, id) where status = 'SCHEDULED';
