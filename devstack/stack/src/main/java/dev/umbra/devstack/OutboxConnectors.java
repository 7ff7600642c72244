package dev.umbra.devstack;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The Debezium connector that streams a service database's outbox to Kafka, derived from
 * {@link ServiceRegistry}. {@code deploy/connectors/<service>.json} are these definitions as files
 * (regenerate them with {@link #main}); devstack registers the same definitions with its own host and
 * credentials.
 */
public final class OutboxConnectors {

    /** Created by the platform migration in every service database, with the heartbeat table. */
    public static final String PUBLICATION = "umbra_outbox";
    public static final String HEARTBEAT_TABLE = "replication_heartbeat";
    /** Debezium's default: a connector's heartbeats go to {@code <prefix>.<topic.prefix>}, and topic.prefix is the database. */
    static final String HEARTBEAT_TOPIC_PREFIX = "__debezium-heartbeat";
    static final String POLL_INTERVAL_MS = "10";
    static final String REGENERATE = "./mvnw -B -q -pl devstack/stack -am package -DskipTests && "
            + "java -cp devstack/stack/target/devstack.jar dev.umbra.devstack.OutboxConnectors deploy/connectors";

    private static final ObjectMapper JSON = new ObjectMapper();

    private OutboxConnectors() {
    }

    /** Writes {@code <service>.json} for every service with an outbox into the folder named by the first argument. */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: OutboxConnectors <folder>, e.g. deploy/connectors");
        }
        Path folder = Path.of(args[0]);
        Files.createDirectories(folder);
        for (UmbraService service : ServiceRegistry.SERVICES) {
            if (service.hasOutbox()) {
                Files.writeString(folder.resolve(fileName(service)), file(service));
            }
        }
    }

    public static String fileName(UmbraService service) {
        return service.name() + ".json";
    }

    /** The slot is per cluster, so it carries the database's name; the platform migration creates it under this name. */
    public static String slotName(String database) {
        return database + "_outbox";
    }

    public static String connectorName(String database) {
        return database + "-outbox";
    }

    /** The connector of {@code deploy/connectors}: the password comes from the Connect worker's {@code env} config provider. */
    public static Map<String, String> deployed(UmbraService service) {
        return config(service, service.database(), "postgres", 5432, "umbra",
                "${env:UMBRA_" + service.name().toUpperCase(Locale.ROOT) + "_DB_PASSWORD}");
    }

    /**
     * The connector configuration of {@code service}'s outbox in {@code database}.
     *
     * <p>Why these values: the platform migration creates the publication (outbox and heartbeat
     * tables) and then the slot, before the service can write, so the connector creates neither and
     * streams from the slot's start whenever it is registered ({@code no_data}: no snapshot, the
     * outbox table is always empty anyway). The heartbeat query writes a table of the publication,
     * so an idle database still moves its slot forward and releases WAL.
     */
    public static Map<String, String> config(UmbraService service, String database, String host, int port, String user,
            String password) {
        if (!service.hasOutbox()) {
            throw new IllegalArgumentException(service.name() + " publishes no events and has no outbox connector");
        }
        Map<String, String> config = new LinkedHashMap<>();
        config.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        config.put("tasks.max", "1");
        config.put("plugin.name", "pgoutput");
        config.put("database.hostname", host);
        config.put("database.port", Integer.toString(port));
        config.put("database.user", user);
        config.put("database.password", password);
        config.put("database.dbname", database);
        config.put("topic.prefix", database);
        config.put("slot.name", slotName(database));
        config.put("publication.name", PUBLICATION);
        config.put("publication.autocreate.mode", "disabled");
        config.put("table.include.list", "public.outbox_event");
        config.put("snapshot.mode", "no_data");
        // Whenever the slot has nothing pending the task sleeps this long, so below saturation nearly every event
        // waits for it: measured (./bench relay, docs/benchmarks.md) commit → Kafka p50/p99 18/32 ms with 10 ms and
        // 107/196 ms with 100 ms at 100 events/s. The price is idle CPU: four connectors at 10 ms kept Connect at
        // ~38 % of a core doing nothing, at 100 ms ~9 %: latency first on Connect's own nodes; devstack, where
        // Connect shares the cores with everything, trades it back (KafkaConnectWorker).
        config.put("poll.interval.ms", POLL_INTERVAL_MS);
        config.put("heartbeat.interval.ms", "10000");
        config.put("heartbeat.action.query", "insert into " + HEARTBEAT_TABLE + " (id, beat_at) values (1, now()) "
                + "on conflict (id) do update set beat_at = excluded.beat_at");
        config.put("tombstones.on.delete", "false");
        config.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        config.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        // headers as plain text (the source block as JSON), whatever the worker's default
        config.put("header.converter", "org.apache.kafka.connect.storage.SimpleHeaderConverter");
        config.put("topic.creation.default.partitions", "3");
        config.put("topic.creation.default.replication.factor", "-1");
        // Debezium's record timestamp is when it read the change; the commit time is source.ts_ms, which the
        // outbox router does not carry. Copying the source block into a header (before the router, which
        // keeps headers) hands consumers the commit time: audit's recorded_at, the inbox's lag.
        config.put("transforms", "source,outbox");
        config.put("transforms.source.type", "org.apache.kafka.connect.transforms.HeaderFrom$Value");
        config.put("transforms.source.fields", "source");
        config.put("transforms.source.headers", "source");
        config.put("transforms.source.operation", "copy");
        config.put("transforms.source.predicate", "outboxTable");
        config.put("predicates", "outboxTable");
        config.put("predicates.outboxTable.type", "org.apache.kafka.connect.transforms.predicates.TopicNameMatches");
        config.put("predicates.outboxTable.pattern", database + "\\.public\\.outbox_event");
        config.put("transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter");
        config.put("transforms.outbox.table.field.event.id", "id");
        config.put("transforms.outbox.table.field.event.key", "aggregateid");
        config.put("transforms.outbox.table.field.event.payload", "payload");
        config.put("transforms.outbox.route.by.field", "aggregatetype");
        config.put("transforms.outbox.route.topic.replacement", "umbra.${routedByValue}");
        config.put("transforms.outbox.table.fields.additional.placement", "type:header:eventType,aggregatetype:header:aggregateType,"
                + "timestamp:header:occurredAt,schema_version:header:schemaVersion,tracingspancontext:header:traceparent,"
                + "sequence:header:sequence");
        // a column added to the outbox later is missing from the rows written before the migration that adds it (services
        // still running the old version during a rollout): the record goes out without that header, which consumers take as
        // unknown, rather than fail the connector on it again and again
        config.put("transforms.outbox.table.fields.additional.error.on.missing", "false");
        config.put("transforms.outbox.table.expand.json.payload", "false");
        return config;
    }

    /** The file's text: stable order and layout, so that a diff shows exactly what changed. */
    public static String file(UmbraService service) {
        String config = deployed(service).entrySet().stream()
                .map(e -> "    " + quote(e.getKey()) + ": " + quote(e.getValue()))
                .collect(Collectors.joining(",\n"));
        return "{\n  \"name\": " + quote(connectorName(service.database())) + ",\n  \"config\": {\n" + config + "\n  }\n}\n";
    }

    private static String quote(String text) {
        try {
            return JSON.writeValueAsString(text);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
