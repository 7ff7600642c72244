package dev.umbra.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A stack of its own (not the shared one), its Connect worker started on demand: none runs until the outbox is streamed,
 * the outbox connector then streams what was committed before it existed, and closing leaves nothing behind. On demand
 * rather than with the stack (the default) because a second stack would double this module's cost, and the default is
 * what every module with outbox tests runs on.
 */
class DevstackIT {

    @Test
    void startsConnectOnDemandStreamsAnOutboxFromItsSlotAndCleansUpAfterwards() throws Exception {
        Devstack stack = Devstack.start(Devstack.ConnectStart.ON_DEMAND);
        List<Long> pids = new ArrayList<>(List.of(stack.postgres().pid(), stack.kafka().pid()));
        try {
            assertThat(query(stack, "postgres", "show wal_level")).isEqualTo("logical");
            if ("root".equals(System.getProperty("user.name"))) {
                assertThat(ProcessHandle.of(stack.postgres().pid()).flatMap(p -> p.info().user())).contains("nobody");
            }
            // the database password and the local tokens are for their owner's eyes only
            assertThat(Files.getPosixFilePermissions(stack.postgres().passwordFile())).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            Path tokens = stack.workDir().resolve("tokens.env");
            DevstackCli.writeTokens(stack, tokens);
            assertThat(Files.getPosixFilePermissions(tokens)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            assertThat(Files.readString(tokens)).startsWith("export BOT_TOKEN=");

            stack.postgres().createDatabase("guild");
            // What the platform migrations (V0_1..V0_4) make of every service database, in its order.
            execute(stack, "guild", "create table outbox_event (id uuid primary key, aggregatetype varchar(64) not null, "
                    + "aggregateid varchar(128) not null, type varchar(128) not null, \"timestamp\" timestamptz not null, "
                    + "payload jsonb not null, schema_version integer not null, tracingspancontext varchar(256), sequence bigint)");
            execute(stack, "guild", "create table " + OutboxConnectors.HEARTBEAT_TABLE + " (id smallint primary key, beat_at timestamptz not null)");
            execute(stack, "guild", "create publication " + OutboxConnectors.PUBLICATION + " for table outbox_event, "
                    + OutboxConnectors.HEARTBEAT_TABLE + " with (publish = 'insert, update')");
            execute(stack, "guild", "select pg_create_logical_replication_slot('" + OutboxConnectors.slotName("guild") + "', 'pgoutput')");

            // Written before the connector exists: the slot keeps it.
            UUID rolledBack = UUID.randomUUID();
            UUID committed = UUID.randomUUID();
            try (Connection connection = stack.postgres().connect("guild"); Statement statement = connection.createStatement()) {
                connection.setAutoCommit(false);
                statement.execute(insert(rolledBack));
                connection.rollback();
                statement.execute(insert(committed));
                statement.execute("delete from outbox_event where id = '" + committed + "'");
                connection.commit();
            }
            assertThat(childPids()).as("processes before anything asked for Connect").containsExactlyInAnyOrderElementsOf(pids);
            try (var admin = stack.kafka().admin()) {
                assertThat(admin.listTopics().names().get()).as("made with the stack, before any connector's first heartbeat")
                        .contains("umbra.guild", "__debezium-heartbeat.guild", "__debezium-heartbeat.billing");
            }
            stack.streamOutbox("guild", "guild");
            Set<Long> runningOnceStreamed = childPids();
            pids.add(stack.connect().pid());
            assertThat(runningOnceStreamed).as("processes once the outbox is streamed").containsExactlyInAnyOrderElementsOf(pids);

            ConsumerRecord<String, String> record = awaitRecord(stack, "umbra.guild", committed.toString());
            assertThat(record.key()).isEqualTo("123456789012345678");
            assertThat(record.value()).isEqualTo("{\"guild_id\": \"123456789012345678\"}");
            assertThat(header(record, "eventType")).isEqualTo("BotKicked");
            assertThat(header(record, "aggregateType")).isEqualTo("guild");
            assertThat(header(record, "schemaVersion")).isEqualTo("1");
            assertThat(header(record, "sequence")).isEqualTo("1");
            assertThat(header(record, "occurredAt")).startsWith("2026-11-22T10:00:00");
            assertThat(query(stack, "guild", "select count(*) from pg_replication_slots where slot_name = 'guild_outbox'")).isEqualTo("1");

            // a worker that died is named by the next call to it, with its last lines, not by what the socket saw
            stack.connect().crash();
            assertThatThrownBy(() -> stack.connect().pause(OutboxConnectors.connectorName("guild")))
                    .isInstanceOf(IllegalStateException.class).hasMessageStartingWith("kafka-connect exited with code");
        } finally {
            stack.close();
        }

        assertThat(Files.exists(stack.workDir())).isFalse();
        for (long pid : pids) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).as("process %d", pid).isNotEqualTo(java.util.Optional.of(true));
        }
        assertThat(Ports.listening(stack.postgres().port())).isFalse();
    }

    private static Set<Long> childPids() {
        return ProcessHandle.current().children().map(ProcessHandle::pid).collect(Collectors.toSet());
    }

    private static String insert(UUID id) {
        return "insert into outbox_event values ('" + id + "', 'guild', '123456789012345678', 'BotKicked', "
                + "'2026-11-22T10:00:00Z', '{\"guild_id\":\"123456789012345678\"}', 1, null, 1)";
    }

    private static ConsumerRecord<String, String> awaitRecord(Devstack stack, String topic, String eventId) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "devstack-it");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> seen = new ArrayList<>();
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ZERO).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
                return seen.stream().anyMatch(r -> eventId.equals(header(r, "id")));
            });
            assertThat(seen).as("only the committed row is an event").hasSize(1);
            return seen.get(0);
        }
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static String query(Devstack stack, String database, String sql) throws SQLException {
        try (Connection connection = stack.postgres().connect(database); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        }
    }

    private static void execute(Devstack stack, String database, String sql) throws SQLException {
        try (Connection connection = stack.postgres().connect(database); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
