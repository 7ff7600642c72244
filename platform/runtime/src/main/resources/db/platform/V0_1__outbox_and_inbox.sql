-- Plumbing tables of every service database (platform/runtime). Service migrations start at V1.

-- Debezium's outbox contract. Rows are inserted and deleted in the transaction that makes them:
-- the table stays empty and the write-ahead log carries the events to Kafka.
create table outbox_event (
    id                 uuid         primary key,
    aggregatetype      varchar(64)  not null,
    aggregateid        varchar(128) not null,
    type               varchar(128) not null,
    "timestamp"        timestamptz  not null,
    payload            jsonb        not null,
    schema_version     integer      not null,
    tracingspancontext varchar(256)
);

-- One row per event a consumer has applied, written in the transaction of its effects.
create table processed_event (
    consumer       varchar(64)  not null,
    event_id       uuid         not null,
    event_type     varchar(128) not null,
    aggregate_type varchar(64)  not null,
    aggregate_id   varchar(128) not null,
    recorded_at    timestamptz,
    processed_at   timestamptz  not null default now(),
    primary key (consumer, event_id)
);

create index processed_event_processed_at on processed_event (processed_at);
