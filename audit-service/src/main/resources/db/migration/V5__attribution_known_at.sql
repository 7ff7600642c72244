-- When an attribution became known in record time, the clock of `knownAt`: the later of the event's own
-- recorded_at and the recorded_at of the event that told its guild (a LicenseExtended attributed when its
-- LicenseGranted arrives is known under the guild from the grant's recording on, not from its own).
-- Rows attributed before this column existed have none: their attributed_at (audit's processing time,
-- never earlier than the truth) stands in for it.
alter table audit_guild add column known_at timestamptz;
