-- A guild deleted on Discord before its install reached us is kept as a tombstone: status DELETED, nobody
-- installed it, nobody owns it. Discord never reuses a deleted guild's id, so a late install of it is
-- refused (409) instead of bringing the guild back.
alter table guild alter column installer_user_id drop not null;
alter table guild alter column owner_id drop not null;
alter table guild alter column installed_at drop not null;
alter table guild add constraint guild_installed_has_installer
    check (status = 'DELETED' or (installer_user_id is not null and owner_id is not null and installed_at is not null));
