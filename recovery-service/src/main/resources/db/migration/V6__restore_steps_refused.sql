-- A step Discord refuses (a managed role, one above the bot's own, a channel a Community guild needs) is
-- SKIPPED with why, and the restore goes on with the rest; the job counts them.
alter table restore_step add column note varchar(300);
alter table restore_job add column skipped_count integer not null default 0;
