-- What the test consumer did: one row per application of an event (a duplicate would show as two).
create table applied_event (
    event_id   uuid        not null,
    guild_id   varchar(32) not null,
    applied_at timestamptz not null default now()
);
