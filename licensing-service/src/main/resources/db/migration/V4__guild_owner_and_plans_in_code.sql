-- What each plan allows now lives in code (dev.umbra.events.plan.Plan), shared by every service that enforces it.
drop table plan_entitlement;

-- Read model fed by guild events: who owns each guild, so that a user reads only the licenses of guilds they own.
-- The owner is the new owner of the latest GuildOwnerChanged, else the installer of the earliest BotInstalled
-- (a reinstall does not change the owner), so the same events give the same owner in any order of arrival.
create table guild_owner (
    guild_id           varchar(20) primary key,
    first_installer_id varchar(20),
    first_installed_at timestamptz,
    changed_owner_id   varchar(20),
    owner_changed_at   timestamptz
);
