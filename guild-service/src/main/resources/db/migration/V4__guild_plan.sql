-- Read model fed by licensing's events (umbra.license): each guild's plan and license status, so that
-- guild-service enforces plan allowances (web-join) without calling licensing. Keyed by license: only
-- LicenseGranted names the guild. Plan and status each keep the occurred_at of the event that set them
-- and an older event never overwrites a newer one; CANCELED is final.
create table guild_plan (
    license_id uuid        primary key,
    guild_id   varchar(20) unique,
    plan       varchar(16),
    plan_at    timestamptz,
    status     varchar(16),
    status_at  timestamptz
);
