-- Who owns a guild follows the guild's own stream (the outbox's per-aggregate sequence), not the clocks of the
-- guild-service replicas that stamped occurred_at (0: the event carried no sequence, its time decides).
alter table guild_owner add column first_installed_sequence bigint not null default 0;
alter table guild_owner add column owner_changed_sequence bigint not null default 0;
