-- The bot's calls about a guild's lifecycle can overtake one another (an install tried again after a 503,
-- once the kick that followed it on Discord was applied). A call may say when its event happened on Discord
-- (occurredAt, Discord's one clock); discord_at is the latest such time of a change applied, and a call
-- about an event before it is overtaken: answered with the guild as it is, nothing changed or published.
alter table guild add column discord_at timestamptz;

-- A kick that overtook the guild's install is kept, as a delete that did is: status KICKED, nobody
-- installed it yet, nobody owns it, so the install that comes later and happened before it changes nothing.
alter table guild drop constraint guild_installed_has_installer;
alter table guild add constraint guild_installed_has_installer
    check (status <> 'INSTALLED' or (installer_user_id is not null and owner_id is not null and installed_at is not null));
