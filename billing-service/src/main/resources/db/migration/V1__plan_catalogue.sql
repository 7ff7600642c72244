-- The plans a guild can subscribe to. Prices are in minor units (KRW has none: 9900 = ₩9,900).
create table plan (
    code          varchar(16) primary key,
    name          varchar(64) not null,
    monthly_price bigint      not null check (monthly_price >= 0),
    currency      char(3)     not null,
    rank          integer     not null unique
);

insert into plan (code, name, monthly_price, currency, rank) values
    ('FREE', 'Free', 0, 'KRW', 0),
    ('PRO', 'Pro', 9900, 'KRW', 1),
    ('PREMIUM', 'Premium', 19900, 'KRW', 2);
