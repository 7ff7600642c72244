-- Which guild a subscription pays for is the platform's read model now (dev.umbra.platform.readmodel.
-- AggregateGuilds, table aggregate_guild, migration V0_6): the rows move there and the service's own
-- table goes.
insert into aggregate_guild (aggregate_type, aggregate_id, guild_id, learned_at)
select 'subscription', subscription_id::text, guild_id, started_at from subscription_guild
on conflict (aggregate_type, aggregate_id) do nothing;

drop table subscription_guild;
