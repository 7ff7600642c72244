-- Plain builds, in Flyway's transaction: they hold off writes to work_item while they run (well under a second for the
-- few hundred thousand rows a service may hold by then), and a writer that waits longer than its statement timeout tries
-- again. CREATE INDEX CONCURRENTLY would wait for every open transaction, Flyway's own lock among them (flyway#3854).
-- Done items are deleted once they finished before the dedupe horizon (ProcessedEventTrimmer): found by their finish time.
create index work_item_done on work_item (finished_at) where status = 'done';
-- WorkQueue.anyUnfinished looks for a key prefix among a queue's unfinished items only, not among all it ever finished.
create index work_item_unfinished on work_item (queue, item_key) where status <> 'done';
