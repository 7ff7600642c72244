-- Tries whose lease ran out with nothing recorded: the worker died or hung while trying the item. Such a
-- try spends no attempt, so without this count an item that kills its worker would be claimed for ever.
-- try_started marks a claim whose try began (items of a batch still waiting for their turn are not counted
-- when their worker dies); abandoned_claims counts such claims in a row, until an outcome or progress.
alter table work_item add column try_started boolean not null default false;
alter table work_item add column abandoned_claims integer not null default 0;
