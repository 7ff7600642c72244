-- Every callback of a payment provider whose signature held, as received (card data never kept: the
-- intake stores only the fields it reads). Partitioned by month of received_at so old months are
-- dropped whole; rows outside the months created fall into the default partition.
-- status: received (recorded) -> processing (an apply under way, or cut short by a fault) ->
-- completed (it changed a payment) | skipped (nothing to change) | failed (nothing it could apply to).
create table webhook_events (
    id                uuid         not null,
    received_at       timestamptz  not null,
    provider          varchar(32)  not null,
    provider_event_id varchar(200) not null,
    event_type        varchar(64)  not null,
    payload           jsonb        not null,
    status            varchar(16)  not null check (status in ('received', 'processing', 'completed', 'failed', 'skipped')),
    attempts          integer      not null default 0,
    result            varchar(500),
    processed_at      timestamptz,
    primary key (id, received_at)
) partition by range (received_at);
create index webhook_events_by_status on webhook_events (status, received_at);
create table webhook_events_default partition of webhook_events default;

-- One row per provider event, whatever month it came in: UNIQUE (provider, provider_event_id) on the
-- partitioned table would have to include received_at, and a redelivery a second later (or a month
-- later) has another received_at. Written in the same transaction as the event's row.
create table webhook_event_key (
    provider          varchar(32)  not null,
    provider_event_id varchar(200) not null,
    event_id          uuid         not null,
    received_at       timestamptz  not null,
    primary key (provider, provider_event_id)
);

-- The monthly partitions from the current month to `months_ahead` months later that do not exist yet.
-- The reconciliation job calls it every run, so partitions always exist ahead of the rows.
create function ensure_webhook_events_partitions(months_ahead integer) returns integer
language plpgsql as $$
declare
    month   date;
    name    text;
    created integer := 0;
begin
    for i in 0..months_ahead loop
        month := (date_trunc('month', now() at time zone 'UTC') + make_interval(months => i))::date;
        name := 'webhook_events_' || to_char(month, 'YYYY_MM');
        if to_regclass(name) is null then
            execute format('create table %I partition of webhook_events for values from (%L) to (%L)',
                           name, (month::timestamp at time zone 'UTC'), ((month + interval '1 month')::timestamp at time zone 'UTC'));
            created := created + 1;
        end if;
    end loop;
    return created;
end;
$$;

select ensure_webhook_events_partitions(3);
