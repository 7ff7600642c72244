-- A row lands in a default partition when no month partition takes its occurred_at: a backlog older than
-- the first month, or a producer whose clock runs months ahead. Left there it was never dropped by
-- retention, and its month could never be created (Postgres refuses a partition whose rows sit in the
-- default), so every later row of that month went to the default too. audit_rehome_default empties the
-- defaults without updating or deleting a row: the default is detached and replaced by an empty one, the
-- months of its rows still kept are created, those rows are inserted again (into their months), and the
-- old default is dropped whole, with the rows older than what is kept, as retention drops a month.
create function audit_rehome_default(kept_from timestamptz) returns integer language plpgsql as $$
declare
    parent   text;
    detached text;
    columns  text;
    month    timestamptz;
    taken    boolean;
    rows     integer;
    moved    integer := 0;
begin
    foreach parent in array array['audit_log', 'audit_guild'] loop
        execute format('select exists (select 1 from %I)', parent || '_default') into strict taken;
        continue when not taken;
        -- detaching locks the table whole: give up after a few seconds rather than stall ingest and queries
        -- behind a long reader (or meet one in a deadlock); the next retention run tries again
        perform set_config('lock_timeout', '5s', true);
        detached := parent || '_default_detached';
        execute format('alter table %I detach partition %I', parent, parent || '_default');
        execute format('alter table %I rename to %I', parent || '_default', detached);
        execute format('create table %I partition of %I default', parent || '_default', parent);
        for month in execute format('select distinct date_trunc(''month'', occurred_at at time zone ''UTC'') at time zone ''UTC'' '
                                    || 'from %I where occurred_at >= %L', detached, kept_from) loop
            perform audit_create_month_tables(month, 1);
        end loop;
        select string_agg(quote_ident(attname), ', ' order by attnum) into strict columns
        from pg_attribute where attrelid = parent::regclass and attnum > 0 and not attisdropped;
        execute format('insert into %I (%s) select %s from %I where occurred_at >= %L', parent, columns, columns, detached, kept_from);
        get diagnostics rows = row_count;
        moved := moved + rows;
        execute format('drop table %I', detached);
    end loop;
    perform audit_refuse_truncate();
    return moved;
end
$$;
