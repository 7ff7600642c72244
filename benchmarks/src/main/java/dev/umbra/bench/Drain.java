package dev.umbra.bench;

import dev.umbra.devstack.LocalSystem;
import dev.umbra.devstack.ServiceRegistry;
import dev.umbra.testing.Database;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Backlog drain of one consumer service: it was stopped while records piled up on its topics; it is
 * started again and its consumer group's lag (end offsets minus committed offsets, Kafka Admin) is
 * sampled every 200 ms until it is zero. The rate is read from the service's own claims
 * ({@code processed_event.processed_at}, each batch transaction's start): committed offsets move only
 * every {@code auto.commit.interval.ms} (5 s, the throttled commit strategy), which hides a drain faster
 * than that.
 */
final class Drain {

    /**
     * {@code backlog}: the lag when the service was launched; {@code launchToEmpty} includes the start of
     * the service and the group's join; the rate is what the group committed from its first commit on
     * (records arriving meanwhile, such as licensing's events for audit, count too).
     * {@code curve}: (seconds since launch, lag).
     */
    record Result(String service, long backlog, boolean drained, Duration launchToEmpty, long claimed, Duration claiming,
                  long transactions, List<double[]> curve) {

        /** Events claimed per second, from the first batch transaction's start to the last one's. */
        double eventsPerSecond() {
            return claiming.isZero() ? 0 : claimed / (claiming.toNanos() / 1e9);
        }

        String report() {
            return String.format("drain of %s: %,d events at launch, %s in %.1f s from launch; %,d claimed in %.2f s (first → last claim) "
                    + "by %,d transactions (%.0f events each): %,.0f events/s", service, backlog, drained ? "drained" : "NOT drained",
                    launchToEmpty.toMillis() / 1000.0, claimed, claiming.toMillis() / 1000.0, transactions,
                    transactions == 0 ? 0.0 : (double) claimed / transactions, eventsPerSecond());
        }
    }

    private Drain() {
    }

    static Result measure(LocalSystem system, Admin admin, String service, String group, Predicate<String> topics, Duration patience)
            throws Exception {
        long[] atLaunch = offsets(admin, group, topics);
        long backlog = atLaunch[1] - atLaunch[0];
        List<double[]> curve = new ArrayList<>();
        long launched = System.nanoTime();
        Instant launchedAt = Instant.now();
        curve.add(new double[] {0, backlog});
        AtomicBoolean restarted = new AtomicBoolean();
        Thread starter = new Thread(() -> {
            system.restart(service);
            restarted.set(true);
        }, "bench-restart-" + service);
        starter.start();
        long empty = -1;
        long deadline = launched + patience.toNanos();
        while (System.nanoTime() < deadline) {
            Thread.sleep(200);
            long now = System.nanoTime();
            long[] at = offsets(admin, group, topics);
            long lag = at[1] - at[0];
            curve.add(new double[] {(now - launched) / 1e9, lag});
            if (lag == 0 && restarted.get()) {
                empty = now;
                break;
            }
        }
        starter.join();
        boolean drained = empty > 0;
        long end = drained ? empty : System.nanoTime();
        // processed_at is its transaction's start, the same for every event a batch transaction claimed
        String[] claims = Database.of(ServiceRegistry.named(service).database()).text("select count(*) || ' ' "
                        + "|| coalesce(round(extract(epoch from max(processed_at) - min(processed_at)) * 1000), 0) || ' ' "
                        + "|| count(distinct processed_at) "
                        + "from processed_event where consumer = ? and processed_at >= cast(? as timestamptz)", service, launchedAt.toString())
                .split(" ");
        return new Result(service, backlog, drained, Duration.ofNanos(end - launched), Long.parseLong(claims[0]),
                Duration.ofMillis(Long.parseLong(claims[1])), Long.parseLong(claims[2]), curve);
    }

    /**
     * The group's committed offsets and the end offsets, each summed over the partitions of the topics it
     * reads; a partition it never committed counts from its beginning. Lag = ends − committed.
     */
    static long[] offsets(Admin admin, String group, Predicate<String> topics) throws ExecutionException, InterruptedException {
        Set<String> names = admin.listTopics().names().get().stream().filter(topics).collect(Collectors.toSet());
        List<TopicPartition> partitions = admin.describeTopics(names).allTopicNames().get().values().stream()
                .flatMap(topic -> topic.partitions().stream().map(p -> new TopicPartition(topic.name(), p.partition()))).toList();
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        Map<TopicPartition, Long> ends = offsets(admin, partitions, OffsetSpec.latest());
        Map<TopicPartition, Long> starts = offsets(admin, partitions, OffsetSpec.earliest());
        long committedSum = 0;
        long endSum = 0;
        for (TopicPartition partition : partitions) {
            OffsetAndMetadata at = committed.get(partition);
            committedSum += at == null ? starts.get(partition) : at.offset();
            endSum += ends.get(partition);
        }
        return new long[] {committedSum, endSum};
    }

    /** Events behind, summed over every consumer group and the partitions it has committed on. */
    static long lagOfAllGroups(Admin admin) throws ExecutionException, InterruptedException {
        long lag = 0;
        for (var group : admin.listConsumerGroups().all().get()) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group.groupId())
                    .partitionsToOffsetAndMetadata().get();
            Map<TopicPartition, Long> ends = offsets(admin, List.copyOf(committed.keySet()), OffsetSpec.latest());
            for (var at : committed.entrySet()) {
                lag += ends.get(at.getKey()) - at.getValue().offset();
            }
        }
        return lag;
    }

    private static Map<TopicPartition, Long> offsets(Admin admin, List<TopicPartition> partitions, OffsetSpec spec)
            throws ExecutionException, InterruptedException {
        return admin.listOffsets(partitions.stream().collect(Collectors.toMap(p -> p, p -> spec))).all().get().entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }
}
