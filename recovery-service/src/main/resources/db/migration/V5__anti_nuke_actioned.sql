-- Set in the transaction that stores the anti-nuke response's snapshot and publishes AntiNukeActioned.
-- The work queue records the item done afterwards, on another connection: a try repeated because that
-- record was lost (the worker died, the database faulted) finds the incident actioned and acts no more.
alter table anti_nuke_incident add column actioned_at timestamptz;
