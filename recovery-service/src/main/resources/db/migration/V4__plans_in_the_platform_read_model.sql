-- The plan read model is the platform's now (dev.umbra.platform.readmodel.GuildPlans, table license_plan,
-- migration V0_6): the same rows move there, without sequences (ordered by occurred_at until an event
-- with a sequence comes), and the service's own table goes.
insert into license_plan (license_id, guild_id, plan, plan_at, status, status_at)
select license_id, guild_id, plan, plan_at, status, status_at from guild_plan
on conflict (license_id) do nothing;

drop table guild_plan;
