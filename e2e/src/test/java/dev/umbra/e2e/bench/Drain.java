package dev.umbra.e2e.bench;

import dev.umbra.devstack.LocalSystem;
import java.time.Duration;
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
 * sampled every 200 ms until it is zero.
 */
final class Drain {

    /**
     * {@code backlog}: the lag when the service was launched; {@code launchToEmpty} includes the start of
     * the service and the group's join; the rate is what the group committed from its first commit on
     * (records arriving meanwhile, such as licensing's events for audit, count too).
     * {@code curve}: (seconds since launch, lag).
     */
    record Result(String service, long backlog, boolean drained, Duration launchToEmpty, Duration progressToEmpty, double eventsPerSecond,
                  List<double[]> curve) {

        String report() {
            return String.format("drain of %s: %,d events at launch, %s in %.1f s from launch, %.1f s from the first commit: %,.0f events/s", service,
                    backlog, drained ? "drained" : "NOT drained", launchToEmpty.toMillis() / 1000.0, progressToEmpty.toMillis() / 1000.0,
                    eventsPerSecond);
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
        curve.add(new double[] {0, backlog});
        AtomicBoolean restarted = new AtomicBoolean();
        Thread starter = new Thread(() -> {
            system.restart(service);
            restarted.set(true);
        }, "bench-restart-" + service);
        starter.start();
        long firstProgress = -1;
        long empty = -1;
        long consumed = 0;
        long deadline = launched + patience.toNanos();
        while (System.nanoTime() < deadline) {
            Thread.sleep(200);
            long now = System.nanoTime();
            long[] at = offsets(admin, group, topics);
            long lag = at[1] - at[0];
            consumed = at[0] - atLaunch[0];
            curve.add(new double[] {(now - launched) / 1e9, lag});
            if (firstProgress < 0 && consumed > 0) {
                firstProgress = now;
            }
            if (lag == 0 && restarted.get()) {
                empty = now;
                break;
            }
        }
        starter.join();
        boolean drained = empty > 0;
        long end = drained ? empty : System.nanoTime();
        long from = firstProgress < 0 ? end : firstProgress;
        // counted from the first commit: the records of that first commit were consumed before it, so a little optimistic
        double rate = end > from ? consumed / ((end - from) / 1e9) : 0;
        return new Result(service, backlog, drained, Duration.ofNanos(end - launched), Duration.ofNanos(end - from), rate, curve);
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
