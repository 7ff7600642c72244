-- Events committed in the same millisecond share their recorded_at (a transaction that publishes two
-- events of one aggregate commits them at one instant): replays read in (recorded_at, sequence, event
-- id) order, so that an aggregate's events go out in the order its outbox gave them, not the order of
-- their random ids. A replay saved before this resumes from sequence 0 of its instant: at worst a few
-- events are published a second time, which consumers skip.
alter table replay add column cursor_sequence bigint;
update replay set cursor_sequence = 0 where cursor_event_id is not null;

drop index audit_log_recorded;
create index audit_log_recorded on audit_log (recorded_at, sequence, event_id);
