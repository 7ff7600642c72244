-- The read models of each aggregate's guild and of each guild's plan are the platform's now
-- (dev.umbra.platform.readmodel, tables aggregate_guild and license_plan, migration V0_6): the rows
-- move there (plans without sequences: ordered by occurred_at until an event with a sequence comes)
-- and the service's own tables go.
insert into aggregate_guild (aggregate_type, aggregate_id, guild_id, learned_at)
select aggregate_type, aggregate_id, guild_id, now() from guild_of
on conflict (aggregate_type, aggregate_id) do nothing;

drop table guild_of;

insert into license_plan (license_id, guild_id, plan, plan_at, status, status_at)
select license_id, guild_id, plan, plan_at, status, status_at from guild_plan
on conflict (license_id) do nothing;

drop table guild_plan;
