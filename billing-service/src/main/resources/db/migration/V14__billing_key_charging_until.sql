-- Until when a charge with the key may still be on its way to the gateway: set when a charge is prepared (the
-- longest a call with all the guard's tries can take), read by the key's deletion, which waits for it (409)
-- rather than answer "deleted" while a charge with the key can still be carried out.
alter table billing_key add column charging_until timestamptz;
