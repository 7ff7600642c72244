-- Per-aggregate sequence numbers: the outbox gives each event its position in its aggregate's stream,
-- in the transaction that writes it, and Debezium sends it as the "sequence" header. Consumers use it
-- to order the events of one aggregate without trusting the clocks of other services.
create table aggregate_sequence (
    aggregate_type varchar(64)  not null,
    aggregate_id   varchar(128) not null,
    last_sequence  bigint       not null,
    primary key (aggregate_type, aggregate_id)
);

alter table outbox_event add column sequence bigint;
