-- Where the latest applied guild and subscription events stand in their aggregate's stream: the outbox's
-- sequence decides which of two events came first (0: the event carried none, its time decides).
alter table license add column guild_event_sequence bigint not null default 0;
alter table license add column subscription_event_sequence bigint not null default 0;
