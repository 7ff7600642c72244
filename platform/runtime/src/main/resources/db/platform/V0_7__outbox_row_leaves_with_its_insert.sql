-- An outbox row is read from the write-ahead log, never from the table: it leaves the table in the very
-- statement that inserted it, so a writer sends one statement per event instead of an insert and a
-- delete. The decoded change is the insert; the delete is not published (V0_2: inserts and updates).
create function outbox_event_leave() returns trigger language plpgsql as $$
begin
    delete from outbox_event where id = new.id;
    return null;
end
$$;

create trigger outbox_event_leaves after insert on outbox_event
    for each row execute function outbox_event_leave();
