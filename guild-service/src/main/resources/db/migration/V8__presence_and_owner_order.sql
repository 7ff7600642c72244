-- Whether the bot is in a guild (install, kick) and who owns it (owner change) are two facts, each in its own
-- order on Discord: one clock for both dropped an owner change tried again after a later kick (the guild kept its
-- old owner for good), and an install tried again after a later owner change. presence_at orders installs and
-- kicks, owner_at owner changes. A row's one time so far bounds both: which fact set it is not known.
-- discord_at stays for the pods of the previous version while a rolling update replaces them (they read and write
-- it); nothing of this version uses it, and a later migration drops it.
alter table guild add column presence_at timestamptz, add column owner_at timestamptz;
update guild set presence_at = discord_at, owner_at = discord_at where discord_at is not null;
