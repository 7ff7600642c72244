package dev.umbra.bench;

import dev.umbra.devstack.Devstack;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Notes when each record of interest reaches a topic: the benchmarks' view of "readable on Kafka". */
final class TopicReader {

    private TopicReader() {
    }

    /**
     * Reads {@code topic} from its end on every partition (no group: no rebalance to wait for), with a 5 ms fetch wait;
     * records in {@code seen} when the id {@code idOf} gives a record (null: not ours) is first read. Returns once
     * positioned; the thread stops when {@code running} turns false.
     */
    static Thread start(Devstack stack, String topic, Function<ConsumerRecord<String, String>, String> idOf, Map<String, Long> seen,
            AtomicBoolean running) throws InterruptedException {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka().bootstrapServers());
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 5);
        CountDownLatch positioned = new CountDownLatch(1);
        Thread thread = new Thread(() -> {
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
                List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                        .map(p -> new TopicPartition(topic, p.partition())).toList();
                consumer.assign(partitions);
                consumer.seekToEnd(partitions);
                partitions.forEach(consumer::position);
                positioned.countDown();
                while (running.get()) {
                    consumer.poll(Duration.ofMillis(20)).forEach(record -> {
                        long now = System.nanoTime();
                        String id = idOf.apply(record);
                        if (id != null) {
                            seen.putIfAbsent(id, now);
                        }
                    });
                }
            }
        }, "bench-reader-" + topic);
        thread.setDaemon(true);
        thread.start();
        if (!positioned.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("reader of " + topic + " not positioned within 30 s");
        }
        return thread;
    }
}
