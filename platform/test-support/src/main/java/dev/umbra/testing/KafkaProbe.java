package dev.umbra.testing;

import org.awaitility.Awaitility;

import dev.umbra.devstack.Devstack;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;

/** Reads a topic from its beginning and produces raw records, against the shared devstack. */
public final class KafkaProbe implements AutoCloseable {

    private final KafkaConsumer<String, byte[]> consumer;
    private final List<ConsumerRecord<String, byte[]>> seen = new ArrayList<>();

    private KafkaProbe(String topic) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "probe-" + UUID.randomUUID());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumer = new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
        consumer.subscribe(List.of(topic));
    }

    public static KafkaProbe read(String topic) {
        return new KafkaProbe(topic);
    }

    /** Polls until a record matches; fails after {@code timeout}. */
    public ConsumerRecord<String, byte[]> awaitRecord(Predicate<ConsumerRecord<String, byte[]>> matching, Duration timeout) {
        return Awaitility.await().atMost(timeout).pollInterval(Duration.ZERO)
                .until(() -> {
                    poll();
                    return seen.stream().filter(matching).findFirst();
                }, Optional::isPresent)
                .orElseThrow();
    }

    /** Every record seen so far, after one more poll. */
    public List<ConsumerRecord<String, byte[]>> seen() {
        poll();
        return List.copyOf(seen);
    }

    /**
     * Every record the topic holds now: polls until the probe has joined its group and read each partition up to its end
     * offset. For a check that something is not there, where one poll of a probe that has not joined yet returns nothing.
     */
    public List<ConsumerRecord<String, byte[]>> seenToEnd() {
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ZERO).until(() -> {
            poll();
            Set<TopicPartition> assigned = consumer.assignment();
            return !assigned.isEmpty() && consumer.endOffsets(assigned).entrySet().stream()
                    .allMatch(end -> consumer.position(end.getKey()) >= end.getValue());
        });
        return List.copyOf(seen);
    }

    private void poll() {
        consumer.poll(Duration.ofMillis(100)).forEach(seen::add);
    }

    public static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    public static String value(ConsumerRecord<?, byte[]> record) {
        return new String(record.value(), StandardCharsets.UTF_8);
    }

    /** Produces one record as a producer of the topic would, headers included, and waits for the broker's ack. */
    public static void produce(String topic, String key, byte[] value, Map<String, String> headers) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer())) {
            ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, key, value);
            headers.forEach((name, headerValue) -> record.headers().add(name, headerValue.getBytes(StandardCharsets.UTF_8)));
            producer.send(record).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot produce to " + topic, e.getCause());
        }
    }

    /** Produces many records with one producer, and waits for the broker's ack of each. */
    public static void produceAll(List<ProducerRecord<String, byte[]>> records) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer())) {
            List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
            records.forEach(record -> acks.add(producer.send(record)));
            for (var ack : acks) {
                ack.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot produce", e.getCause());
        }
    }

    /** A record with string headers, for {@link #produceAll}. */
    public static ProducerRecord<String, byte[]> record(String topic, String key, byte[] value, Map<String, String> headers) {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, key, value);
        headers.forEach((name, headerValue) -> record.headers().add(name, headerValue.getBytes(StandardCharsets.UTF_8)));
        return record;
    }

    /** The partition Kafka's default partitioner picks for {@code key}: records of one partition keep their order. */
    public static int partitionOf(String key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    private static String bootstrapServers() {
        return Devstack.shared().kafka().bootstrapServers();
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(2));
    }
}
