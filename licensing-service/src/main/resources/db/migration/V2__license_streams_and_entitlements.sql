-- The license keeps what each event stream said (guild topic, subscription topic) in columns of its
-- own; plan, status and suspension_reason are derived from them and stored for reads.
alter table license
    add column paid_plan                      varchar(16),
    add column expired                        boolean     not null default false,
    add column pending_plan                   varchar(16),
    add column pending_plan_at                timestamptz,
    add column bot_kicked_at                  timestamptz,
    add column subscription_suspended_at      timestamptz,
    add column subscription_suspension_reason varchar(64),
    add column deleted_at                     timestamptz,
    add column guild_event_at                 timestamptz,
    add column subscription_event_at          timestamptz,
    add constraint license_paid_plan check (paid_plan in ('FREE', 'PRO', 'PREMIUM')),
    add constraint license_pending_plan check (pending_plan in ('FREE', 'PRO', 'PREMIUM'));

-- What the sweeper looks for: paid periods that may have run out, and downgrades coming due.
create index license_paid_expiry on license (expires_at) where paid_plan is not null and not expired;
create index license_pending_downgrade on license (pending_plan_at) where pending_plan_at is not null;

-- Read model fed by SubscriptionStarted: which guild a subscription pays for.
create table subscription_guild (
    subscription_id uuid        primary key,
    guild_id        varchar(20) not null,
    started_at      timestamptz not null
);

-- What each plan allows. Data, not code: changing an allowance is a migration, not a release of the bot.
create table plan_entitlement (
    plan                   varchar(16) primary key check (plan in ('FREE', 'PRO', 'PREMIUM')),
    snapshot_retention     integer     not null check (snapshot_retention >= 0),
    restores_per_day       integer     not null check (restores_per_day >= 0),
    anti_nuke              boolean     not null,
    web_join               boolean     not null,
    member_restore         boolean     not null
);

insert into plan_entitlement (plan, snapshot_retention, restores_per_day, anti_nuke, web_join, member_restore) values
    ('FREE', 1, 1, false, false, false),
    ('PRO', 7, 5, true, true, false),
    ('PREMIUM', 30, 20, true, true, true);
