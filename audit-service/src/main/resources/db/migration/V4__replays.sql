-- Replays of stored events to their original topics (POST /audit/replays). The scope says which events;
-- the cursor (recorded_at, event id) how far the replay got, so a worker that takes it over resumes there.
create table replay (
    id                 uuid         primary key,
    aggregate_type     varchar(64),
    aggregate_id       varchar(128),
    occurred_from      timestamptz,
    occurred_to        timestamptz,
    scope              varchar(512) not null,
    status             varchar(16)  not null,
    total              integer      not null,
    published          integer      not null default 0,
    refused_masked     integer      not null default 0,
    refused_old        integer      not null default 0,
    cursor_recorded_at timestamptz,
    cursor_event_id    uuid,
    requested_at       timestamptz  not null,
    finished_at        timestamptz,
    note               varchar(1000),
    version            integer      not null default 0
);

-- Two replays of one scope never run at once.
create unique index replay_one_active_per_scope on replay (scope) where status in ('QUEUED', 'RUNNING');
create index replay_requested on replay (requested_at desc, id);

-- Replays read the log in the order its events were recorded.
create index audit_log_recorded on audit_log (recorded_at, event_id);
