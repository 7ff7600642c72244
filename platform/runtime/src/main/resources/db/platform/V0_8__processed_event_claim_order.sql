-- The order in which a consumer claimed its events. The claims of one transaction share processed_at, and
-- the inbox claims a batch in record order with one statement, which numbers its rows in that order: so
-- (processed_at, claim_order) is the order the consumer applied them, which end-to-end checks compare with
-- the producer's sequence. Added without a table rewrite: old rows stay unnumbered.
create sequence processed_event_claim_order;
alter table processed_event add column claim_order bigint;
alter table processed_event alter column claim_order set default nextval('processed_event_claim_order');
alter sequence processed_event_claim_order owned by processed_event.claim_order;
