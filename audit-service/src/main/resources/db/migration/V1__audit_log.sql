-- Every event of every topic, as it was published. Append-only: the application role gets no UPDATE or DELETE.
create table audit_log (
    event_id       uuid         primary key,
    aggregate_type varchar(64)  not null,
    aggregate_id   varchar(128) not null,
    event_type     varchar(128) not null,
    occurred_at    timestamptz  not null,
    recorded_at    timestamptz,
    payload        jsonb        not null,
    source_topic   varchar(128) not null,
    source_offset  bigint       not null
);

create index audit_log_aggregate on audit_log (aggregate_type, aggregate_id, occurred_at);
