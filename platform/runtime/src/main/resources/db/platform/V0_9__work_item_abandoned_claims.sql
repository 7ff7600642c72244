-- Claims whose lease ran out with nothing recorded: the worker died or hung while trying the item. Such
-- a try spends no attempt, so without this count an item that kills its worker would be claimed for ever.
alter table work_item add column abandoned_claims integer not null default 0;
