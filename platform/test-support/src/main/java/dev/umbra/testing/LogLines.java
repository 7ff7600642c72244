package dev.umbra.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the WARN and ERROR lines of a service's log (format {@code HH:mm:ss.SSS LEVEL [category] ...})
 * and tells which of them nobody expected. Shared by the test classes' {@link LogGuard} and by the
 * end-to-end scenarios, which read the packaged services' log files.
 */
public final class LogLines {

    /** The loggers whose warnings are ours to answer for. */
    private static final List<String> GUARDED = List.of("dev.umbra", "org.hibernate", "io.vertx", "io.smallrye",
            "org.apache.kafka", "io.quarkus", "io.opentelemetry");

    /**
     * Lines every run may print. Each is a known, harmless report of a library, not of our code.
     */
    private static final List<Expectation> ALWAYS = List.of(
            // A consumer or producer asks for a topic before its first record creates it.
            new Expectation("org.apache.kafka.clients.NetworkClient", "WARN", "UNKNOWN_TOPIC_OR_PARTITION|LEADER_NOT_AVAILABLE|recoverable error"),
            // The first record sent to a topic the broker creates on demand meets a leader not yet elected; the producer retries.
            new Expectation("org.apache.kafka.clients.producer.internals.Sender", "WARN", "NOT_LEADER_OR_FOLLOWER|NotLeaderOrFollower"),
            // A Kafka consumer polled while the application shuts down (SmallRye stops polling right after).
            new Expectation("io.smallrye.reactive.messaging.kafka", "WARN",
                    "SRMSG18285.*(already been closed|RejectedExecution)|SRMSG18228.*WakeupException"),
            // A group's membership changed (a channel's next partition consumer joined, a replica started, a new topic
            // matched a pattern) while a member committed, or the consumer's close woke it in the middle of a commit:
            // SmallRye commits the same offsets again.
            new Expectation("io.smallrye.reactive.messaging.kafka", "WARN", "SRMSG18252.*(RebalanceInProgressException|WakeupException)"),
            // A batch the consumer was applying when the application stopped (a test profile's restart): SmallRye
            // tags it itself; the records were not acked and are read again at the next start.
            new Expectation("io.smallrye.reactive.messaging.provider", "ERROR", "SRMSG00201.*\\[Error Occurred After Shutdown\\]"),
            // Platform migrations run out of order on purpose (platform README, "migrations"); Flyway says so at every start.
            new Expectation("org.flywaydb.core.internal.command.DbMigrate", "WARN", "outOfOrder mode is active"));

    /** The category PostgreSQL's server log lines are read under, for expectations of them. */
    public static final String POSTGRESQL = "postgresql";

    /**
     * What PostgreSQL logs while the services work as they should: a transaction that lost a race on a key or to a
     * concurrent one is rolled back and run again by the service (the server logs the statement that lost); a statement
     * cut short by its timeout on a machine the test loads (57014) is a passing fault the service tries again, which
     * its metrics count; a client that asks before the server is ready (devstack's probe while it starts) tries again.
     */
    private static final List<Expectation> POSTGRESQL_ALWAYS = List.of(
            new Expectation(POSTGRESQL, "ERROR", "^duplicate key value violates unique constraint"),
            new Expectation(POSTGRESQL, "ERROR", "^could not serialize access|^deadlock detected"),
            new Expectation(POSTGRESQL, "ERROR", "^canceling statement due to statement timeout"),
            new Expectation(POSTGRESQL, "FATAL", "^the database system is starting up"));

    /** {@code log_line_prefix} '%m [%p] ': time with zone, process id. */
    private static final Pattern SERVER_LINE = Pattern.compile("^\\d{4}-\\d\\d-\\d\\d \\S+ \\S+ \\[\\d+\\] (ERROR|FATAL|PANIC): +(.*)$");

    // Libraries that log through java.util.logging (the OpenTelemetry exporter) print its level names, WARNING and SEVERE.
    private static final Pattern LINE = Pattern.compile("^\\S+ (WARN|WARNING|ERROR|SEVERE) +\\[([^\\]]+)\\] (.*)$");

    public record Line(String level, String category, String text) {
        @Override
        public String toString() {
            return level + " [" + category + "] " + text;
        }
    }

    public record Expectation(String category, String level, String message) {
        boolean matches(Line line) {
            return line.category().startsWith(category) && line.level().equals(level)
                    && (message.isEmpty() || Pattern.compile(message).matcher(line.text()).find());
        }
    }

    private LogLines() {
    }

    /** The size of {@code log} now, to read only what is written after it. */
    public static long mark(Path log) {
        try {
            return Files.exists(log) ? Files.size(log) : 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** WARN and ERROR lines of guarded loggers written to {@code log} since {@code mark} that match no expectation. */
    public static List<Line> unexpected(Path log, long mark, List<Expectation> expected) {
        List<Line> unexpected = new ArrayList<>();
        for (String text : linesSince(log, mark)) {
            Matcher match = LINE.matcher(text);
            if (!match.matches()) {
                continue;
            }
            Line line = new Line(level(match.group(1)), match.group(2), match.group(3));
            boolean guarded = GUARDED.stream().anyMatch(line.category()::startsWith);
            boolean known = ALWAYS.stream().anyMatch(e -> e.matches(line)) || expected.stream().anyMatch(e -> e.matches(line));
            if (guarded && !known) {
                unexpected.add(line);
            }
        }
        return unexpected;
    }

    /**
     * ERROR, FATAL and PANIC lines of a PostgreSQL server log written since {@code mark} that match no expectation
     * (category {@link #POSTGRESQL}): a statement the server refused is a bug even when a retry hides it from the
     * services' logs.
     */
    public static List<Line> unexpectedInServerLog(Path log, long mark, List<Expectation> expected) {
        List<Line> unexpected = new ArrayList<>();
        for (String text : linesSince(log, mark)) {
            Matcher match = SERVER_LINE.matcher(text);
            if (!match.matches()) {
                continue;
            }
            Line line = new Line(match.group(1), POSTGRESQL, match.group(2));
            if (POSTGRESQL_ALWAYS.stream().noneMatch(e -> e.matches(line)) && expected.stream().noneMatch(e -> e.matches(line))) {
                unexpected.add(line);
            }
        }
        return unexpected;
    }

    private static String level(String printed) {
        return switch (printed) {
            case "WARNING" -> "WARN";
            case "SEVERE" -> "ERROR";
            default -> printed;
        };
    }

    private static List<String> linesSince(Path log, long mark) {
        if (!Files.exists(log)) {
            return List.of();
        }
        try {
            byte[] all = Files.readAllBytes(log);
            int from = (int) Math.min(mark, all.length);
            return new String(all, from, all.length - from, StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
