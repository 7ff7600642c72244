-- Whether the bot is in a guild (install, kick) and who owns it (owner change) are two facts, each in its own
-- order on Discord: one clock for both dropped an owner change tried again after a later kick (the guild kept its
-- old owner for good), and an install tried again after a later owner change. presence_at orders installs and
-- kicks, owner_at owner changes. A row's one time so far bounds both: which fact set it is not known.
alter table guild rename column discord_at to presence_at;
alter table guild add column owner_at timestamptz;
update guild set owner_at = presence_at where presence_at is not null;
