-- Read model of each guild's plan, fed by licensing events: snapshot retention and anti-nuke are plan-gated.
create table guild_plan (
    guild_id   varchar(20) primary key,
    license_id uuid        not null unique,
    plan       varchar(16) not null,
    status     varchar(16) not null,
    updated_at timestamptz not null
);
