-- Done items are deleted once they finished before the dedupe horizon (ProcessedEventTrimmer): found by their finish time.
create index work_item_done on work_item (finished_at) where status = 'done';
-- WorkQueue.anyUnfinished looks for a key prefix among a queue's unfinished items only, not among all it ever finished.
create index work_item_unfinished on work_item (queue, item_key) where status <> 'done';
