-- Where the kick a BOT_KICKED suspension stands for stands in the guild's stream (the outbox's sequence;
-- 0 for kicks stored before, or that carried none: their time decides). Two replicas of guild-service may
-- stamp a kick and the reinstall after it with clocks that disagree; the sequence does not.
alter table subscription add column bot_kicked_sequence bigint not null default 0;
