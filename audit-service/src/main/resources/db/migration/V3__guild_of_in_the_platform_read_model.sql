-- The guild of each aggregate is the platform's read model now (dev.umbra.platform.readmodel.
-- AggregateGuilds, table aggregate_guild, migration V0_6), which attribution teaches: the rows move
-- there and the service's own table goes. Events still waiting (audit_unattributed) wait on.
insert into aggregate_guild (aggregate_type, aggregate_id, guild_id, learned_at)
select aggregate_type, aggregate_id, guild_id, learned_at from guild_of
on conflict (aggregate_type, aggregate_id) do nothing;

drop table guild_of;
