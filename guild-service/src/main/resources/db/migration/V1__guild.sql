create table guild (
    guild_id          varchar(20)  primary key,
    status            varchar(16)  not null,
    installer_user_id varchar(20)  not null,
    installed_at      timestamptz  not null,
    updated_at        timestamptz  not null,
    version           bigint       not null default 0,
    constraint guild_status check (status in ('INSTALLED', 'KICKED', 'DELETED'))
);
