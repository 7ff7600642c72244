-- The leased work queue (dev.umbra.platform.workqueue): one table for every queue of a service, keyed
-- by queue name and item key. See WorkQueue for why one table rather than one per queue.

-- Every claim takes a new number: a worker's writes count only while the row still carries its number.
create sequence work_item_lease_token;

create table work_item (
    queue       varchar(64)  not null,
    item_key    varchar(128) not null,
    payload     jsonb        not null,
    status      varchar(16)  not null default 'pending',
    attempts    integer      not null default 0,
    due_at      timestamptz  not null,
    ready_at    timestamptz  not null,
    lease_until timestamptz,
    lease_token bigint,
    last_error  text,
    created_at  timestamptz  not null,
    finished_at timestamptz,
    primary key (queue, item_key),
    constraint work_item_status check (status in ('pending', 'leased', 'done', 'dead'))
);

create index work_item_due on work_item (queue, due_at) where status = 'pending';
create index work_item_leased on work_item (queue, lease_until) where status = 'leased';
create index work_item_dead on work_item (queue, finished_at) where status = 'dead';
