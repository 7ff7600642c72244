-- The tries of a restore that failed since its last finished step: a restore is given up after
-- recovery.restore.max-attempts of them in a row, not after that many tries in all, so one that keeps making
-- progress between Discord's outages or rate limits is finished rather than failed half done.
alter table restore_job add column failed_tries integer not null default 0;
