package dev.umbra.platform.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.LogLines;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The service logs in as a role that owns nothing: it reads and writes the rows of every table its migrations made,
 * and can change none of them, nor their triggers, nor Flyway's history, and makes no table of its own, not even a
 * temporary one. The migrations ran as the database's owner.
 */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "inbox_test"))
@ExpectedLog(category = LogLines.POSTGRESQL, level = "ERROR", message = "^(permission denied|must be owner of)")
class ServiceRoleIT {

    private static final String SERVICE_ROLE = "inbox_test_app";

    @InjectDevstack
    Database db;

    @Test
    void theServiceRunsAsARoleThatOwnsNothing() {
        assertThat(db.count("select count(*) from pg_stat_activity where datname = current_database() and usename = ?", SERVICE_ROLE))
                .as("the service's pool is logged in as its role").isPositive();
        assertThat(db.count("select count(*) from pg_stat_activity where datname = current_database() and usename <> ? "
                + "and backend_type = 'client backend' and pid <> pg_backend_pid() and application_name <> 'PostgreSQL JDBC Driver'",
                SERVICE_ROLE)).as("and as nothing else").isZero();
        assertThat(db.count("select count(*) from pg_class c join pg_roles r on r.oid = c.relowner where r.rolname = ?", SERVICE_ROLE))
                .isZero();
        assertThat(db.count("select count(*) from pg_class c join pg_roles r on r.oid = c.relowner "
                + "where r.rolname = current_user and c.relname in ('outbox_event', 'processed_event', 'work_item')")).isEqualTo(3);
    }

    @Test
    void itWritesRowsAndChangesNoTableTriggerOrHistory() {
        Database service = db.asService();
        UUID id = UUID.randomUUID();
        // its default takes the claim order's sequence: the role may use the sequences too
        service.execute("insert into processed_event (consumer, event_id, event_type, aggregate_type, aggregate_id) "
                + "values ('service-role-check', ?, 'Checked', 'check', 'one')", id);
        assertThat(db.count("select count(*) from processed_event where event_id = ? and claim_order is not null", id)).isEqualTo(1);
        service.execute("delete from processed_event where event_id = ?", id);
        assertThat(db.count("select count(*) from processed_event where event_id = ?", id)).isZero();
        assertThatThrownBy(() -> service.execute("create table stray (id uuid)")).rootCause().hasMessageContaining("permission denied");
        // nor a temporary one, which could stand in for a table that a function running as the owner names
        assertThatThrownBy(() -> service.execute("create temporary table stray (id uuid)")).rootCause().hasMessageContaining("permission denied");
        assertThatThrownBy(() -> service.execute("drop table processed_event")).rootCause().hasMessageContaining("must be owner");
        assertThatThrownBy(() -> service.execute("alter table outbox_event disable trigger all")).rootCause().hasMessageContaining("must be owner");
        assertThatThrownBy(() -> service.execute("truncate work_item")).rootCause().hasMessageContaining("permission denied");
        assertThatThrownBy(() -> service.execute("delete from flyway_schema_history")).rootCause().hasMessageContaining("permission denied");
        assertThatThrownBy(() -> service.execute("create index stray on processed_event (event_id)")).rootCause()
                .hasMessageContaining("must be owner");
        assertThat(db.count("select count(*) from pg_class where relname = 'stray'")).isZero();
    }
}
