package dev.umbra.bench;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.KafkaConnectWorker;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.devstack.ServiceRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Our outbox path against the relay a team would write instead (issue #11, item 2). The same events, written at
 * the same open-loop rate by four writers into guild-service's database, reach Kafka
 * <ul>
 * <li>through the outbox as the services use it: an {@code outbox_event} row (aggregate type {@code relay_bench}),
 * read from the write-ahead log by guild's Debezium connector and routed to {@code umbra.relay_bench} — with the
 * connector's {@code poll.interval.ms} of production (10 ms) and of devstack (100 ms);</li>
 * <li>through a polling relay as a team first writes one (the baseline): one worker that every interval takes up
 * to a batch of rows of a plain table {@code FOR UPDATE SKIP LOCKED}, sends them (acks=all), deletes them and commits — with the baseline's
 * settings (every 2 s, 50 rows) and tuned (every 10 ms, 500 rows).</li>
 * </ul>
 * Latency: the writer's commit returned → the record read from its topic (a reader with a 5 ms fetch wait, the same
 * for all three). Benchmark code only: no service ships a poller. {@code ./bench relay}
 * ({@code -Dbench.relay.rates=100,500}, {@code -Dbench.relay.seconds=10}, {@code -Dbench.relay.patience=60}).
 */
final class RelayBenchmark {

    private static final String DATABASE = "guild";
    private static final int WRITERS = 4;
    private static final String POLLED_TOPIC = "bench.relay";
    private static final String OUTBOX_TOPIC = "umbra.relay_bench";

    /** A polling relay (interval and batch), or our outbox with the connector's {@code poll.interval.ms}. */
    private record Relay(String name, String topic, Duration interval, int batch, String connectorPollMs) {
        boolean polling() {
            return interval != null;
        }
    }

    private static final List<Relay> RELAYS = List.of(
            new Relay("outbox → Debezium (ours), connector polls 10 ms (deploy/connectors)", OUTBOX_TOPIC, null, 0, "10"),
            new Relay("outbox → Debezium (ours), connector polls 100 ms (devstack)", OUTBOX_TOPIC, null, 0, "100"),
            new Relay("polling relay, tuned: every 10 ms, 500 rows", POLLED_TOPIC, Duration.ofMillis(10), 500, null),
            new Relay("polling relay, baseline: every 2 s, 50 rows", POLLED_TOPIC, Duration.ofSeconds(2), 50, null));

    /**
     * Events never read within the patience count at the patience's end: their percentiles are then lower bounds (≥).
     * {@code writersLag}: the largest delay of a commit after its due time, so a run whose writers fell behind says so.
     */
    record Result(int rate, String relay, int written, int delivered, Latencies latencies, Duration lastAfterLastCommit,
            Duration writersLag) {
        String row() {
            String bound = delivered == written ? "" : "≥ ";
            return String.format(Locale.ROOT, "| %d/s | %s | %s%s | %s%s | %s%s | %s%s | %,d of %,d | %s | %,d ms |", rate, relay,
                    bound, Latencies.ms(latencies.millis(50)), bound, Latencies.ms(latencies.millis(90)), bound, Latencies.ms(latencies.millis(99)), bound,
                    Latencies.ms(latencies.maxMillis()), delivered, written,
                    delivered == written ? String.format(Locale.ROOT, "%,d ms", lastAfterLastCommit.toMillis()) : "not all",
                    writersLag.toMillis());
        }
    }

    void run() throws Exception {
        int[] rates = java.util.Arrays.stream(System.getProperty("bench.relay.rates", "100,500").split(",")).mapToInt(Integer::parseInt)
                .toArray();
        int seconds = Integer.getInteger("bench.relay.seconds", 10);
        Duration patience = Duration.ofSeconds(Integer.getInteger("bench.relay.patience", 60));
        Devstack stack = BenchStack.shared();
        try (LocalSystem system = LocalSystem.start(stack, Benchmarks.repoRoot(), false, List.of("guild"))) {
            prepare(stack);
            List<Result> results = new ArrayList<>();
            for (int rate : rates) {
                for (Relay relay : RELAYS) {
                    Result result = measure(stack, relay, rate, seconds, patience);
                    System.out.println(result.row());
                    results.add(result);
                }
            }
            StringBuilder report = new StringBuilder(String.format(Locale.ROOT,
                    "| rate | relay | p50 | p90 | p99 | max | delivered | last after the last commit | writers' largest lag |%n"
                            + "|---|---|---|---|---|---|---|---|---|%n"));
            results.forEach(r -> report.append(r.row()).append(System.lineSeparator()));
            System.out.println(report);
            Benchmarks.writeResult("relay.txt", report.toString());
        }
    }

    private static void prepare(Devstack stack) throws Exception {
        try (Connection connection = stack.postgres().connect(DATABASE); Statement statement = connection.createStatement()) {
            statement.execute("create table if not exists relay_outbox (id bigserial primary key, aggregate_id text not null, "
                    + "payload text not null)");
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers()))) {
            for (String topic : List.of(POLLED_TOPIC, OUTBOX_TOPIC)) {
                try {
                    admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
                } catch (java.util.concurrent.ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
        }
    }

    private static Result measure(Devstack stack, Relay relay, int rate, int seconds, Duration patience) throws Exception {
        int warmup = rate;
        int total = warmup + rate * seconds;
        if (!relay.polling()) {
            // returns once the task runs with the new setting; the second of warm-up events follows before any is counted
            String before = System.getProperty(KafkaConnectWorker.POLL_INTERVAL_PROPERTY);
            System.setProperty(KafkaConnectWorker.POLL_INTERVAL_PROPERTY, relay.connectorPollMs());
            try {
                stack.connect().register(ServiceRegistry.named("guild"), stack.postgres(), DATABASE);
            } finally {
                if (before == null) {
                    System.clearProperty(KafkaConnectWorker.POLL_INTERVAL_PROPERTY);
                } else {
                    System.setProperty(KafkaConnectWorker.POLL_INTERVAL_PROPERTY, before);
                }
            }
        }
        String run = UUID.randomUUID().toString().substring(0, 8);
        long[] due = new long[total];
        long[] committed = new long[total];
        AtomicReference<Exception> pollerFailure = new AtomicReference<>();
        Map<String, Long> seen = new ConcurrentHashMap<>();
        AtomicBoolean running = new AtomicBoolean(true);
        Thread reader = TopicReader.start(stack, relay.topic(), r -> r.key() != null && r.key().startsWith(run) ? r.key() : null, seen, running);
        Thread poller = relay.polling() ? poller(stack, relay, running, pollerFailure) : null;
        ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
        ThreadLocal<PreparedStatement> insert = new ThreadLocal<>();
        List<PreparedStatement> opened = new ArrayList<>();
        try {
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
            long period = TimeUnit.SECONDS.toNanos(1) / rate;
            List<Future<?>> writes = new ArrayList<>(total);
            for (int i = 0; i < total; i++) {
                due[i] = start + i * period;
                LockSupport.parkNanos(due[i] - System.nanoTime());
                int sequence = i;
                writes.add(writers.submit(() -> {
                    PreparedStatement statement = statementOf(stack, relay, insert, opened);
                    String key = run + "-" + sequence;
                    statement.setString(1, key);
                    statement.setString(2, "{\"run\":\"" + run + "\",\"sequence\":" + sequence + "}");
                    statement.executeUpdate();
                    committed[sequence] = System.nanoTime();
                    return null;
                }));
            }
            for (Future<?> write : writes) {
                write.get();
            }
            long lastCommit = 0;
            long writersLag = 0;
            for (int i = 0; i < total; i++) {
                lastCommit = Math.max(lastCommit, committed[i]);
                writersLag = Math.max(writersLag, committed[i] - due[i]);
            }
            long deadline = System.nanoTime() + patience.toNanos();
            while (seen.size() < total && System.nanoTime() < deadline && pollerFailure.get() == null) {
                Thread.sleep(20);
            }
            if (pollerFailure.get() != null) {
                throw new IllegalStateException("the polling relay failed", pollerFailure.get());
            }
            Latencies latencies = new Latencies();
            long lastSeen = lastCommit;
            int delivered = 0;
            for (int i = 0; i < total; i++) {
                Long at = seen.get(run + "-" + i);
                if (at != null) {
                    delivered += i >= warmup ? 1 : 0;
                    lastSeen = Math.max(lastSeen, at);
                }
                if (i >= warmup) {
                    latencies.recordNanos((at == null ? deadline : at) - committed[i]);
                }
            }
            return new Result(rate, relay.name(), total - warmup, delivered, latencies, Duration.ofNanos(lastSeen - lastCommit),
                    Duration.ofNanos(writersLag));
        } finally {
            writers.shutdownNow();
            writers.awaitTermination(10, TimeUnit.SECONDS);
            running.set(false);
            reader.join(TimeUnit.SECONDS.toMillis(10));
            if (poller != null) {
                poller.join(TimeUnit.SECONDS.toMillis(10));
            }
            for (PreparedStatement statement : opened) {
                try {
                    statement.getConnection().close();
                } catch (SQLException e) {
                    System.err.println("relay benchmark: a writer's connection did not close: " + e);
                }
            }
            try (Connection connection = stack.postgres().connect(DATABASE); Statement statement = connection.createStatement()) {
                statement.execute("truncate relay_outbox");
            }
        }
    }

    /** Each writer's own connection and statement, autocommit: one transaction per event. */
    private static PreparedStatement statementOf(Devstack stack, Relay relay, ThreadLocal<PreparedStatement> insert,
            List<PreparedStatement> opened) throws SQLException {
        PreparedStatement statement = insert.get();
        if (statement == null) {
            Connection connection = stack.postgres().connect(DATABASE);
            // the outbox row as OutboxWriter writes it (a trigger deletes it in the same statement); the polled table plain
            statement = connection.prepareStatement(relay.polling()
                    ? "insert into relay_outbox (aggregate_id, payload) values (?, ?)"
                    : "insert into outbox_event (id, aggregatetype, aggregateid, type, \"timestamp\", payload, schema_version, sequence) "
                            + "values (gen_random_uuid(), 'relay_bench', ?, 'RelayBenchmarked', now(), cast(? as jsonb), 1, 1)");
            insert.set(statement);
            synchronized (opened) {
                opened.add(statement);
            }
        }
        return statement;
    }

    /** One worker, as the baseline has it: each interval a batch taken with its row locks, sent, deleted, committed. */
    private static Thread poller(Devstack stack, Relay relay, AtomicBoolean running, AtomicReference<Exception> failure) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        Thread thread = new Thread(() -> {
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
                 Connection connection = stack.postgres().connect(DATABASE);
                 PreparedStatement take = connection.prepareStatement(
                         "select id, aggregate_id, payload from relay_outbox order by id limit ? for update skip locked");
                 PreparedStatement delete = connection.prepareStatement("delete from relay_outbox where id = any(?)")) {
                connection.setAutoCommit(false);
                take.setInt(1, relay.batch());
                while (running.get()) {
                    List<Long> ids = new ArrayList<>();
                    List<Future<?>> sends = new ArrayList<>();
                    try (ResultSet rows = take.executeQuery()) {
                        while (rows.next()) {
                            ids.add(rows.getLong(1));
                            sends.add(producer.send(new ProducerRecord<>(relay.topic(), rows.getString(2), rows.getString(3))));
                        }
                    }
                    for (Future<?> send : sends) {
                        send.get();
                    }
                    delete.setArray(1, connection.createArrayOf("bigint", ids.toArray()));
                    delete.executeUpdate();
                    connection.commit();
                    Thread.sleep(relay.interval().toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                failure.set(e);
            }
        }, "bench-poller");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
