-- V10 let a DELETE from a default partition through whenever the session had set audit.rehoming, which any
-- session may set: a role granted DELETE by mistake could empty the defaults. Now the setting counts only for a
-- member of the table's owner, which the retention runs as (and which could drop the trigger anyway), and only the
-- owner may call the retention's deleting functions.
create or replace function audit_reject_change() returns trigger language plpgsql as $$
begin
    if tg_op = 'DELETE' and tg_table_name in ('audit_log_default', 'audit_guild_default')
       and current_setting('audit.rehoming', true) = 'on'
       and pg_has_role(current_user, (select c.relowner from pg_class c where c.oid = tg_relid), 'MEMBER') then
        return old;
    end if;
    raise exception 'the audit log is append-only: % on % refused', tg_op, tg_table_name using errcode = 'insufficient_privilege';
end
$$;

revoke execute on function audit_purge_default(text, timestamptz, integer) from public;
revoke execute on function audit_move_staged(text, timestamptz, integer, timestamptz, uuid) from public;
revoke execute on function audit_drop_month_table(text) from public;
