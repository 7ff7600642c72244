-- When the kick a BOT_KICKED suspension stands for happened: a BotInstalled from before it (a late or
-- redriven record) does not lift the suspension. Null for suspensions stored before: any return lifts them.
alter table subscription add column bot_kicked_at timestamptz;
