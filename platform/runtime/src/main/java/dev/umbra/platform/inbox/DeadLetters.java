package dev.umbra.platform.inbox;

import dev.umbra.events.Topics;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.smallrye.reactive.messaging.kafka.api.IncomingKafkaRecordMetadata;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Sends a record that cannot be applied to {@code <topic>.dlq}: same key, value and headers (so it can
 * be re-produced as it was), plus the error and where it came from.
 */
@ApplicationScoped
public class DeadLetters {

    public static final String ERROR_CLASS = "dlq.error.class";
    public static final String ERROR_MESSAGE = "dlq.error.message";
    public static final String SOURCE_TOPIC = "dlq.source.topic";
    public static final String SOURCE_PARTITION = "dlq.source.partition";
    public static final String SOURCE_OFFSET = "dlq.source.offset";
    public static final String CONSUMER = "dlq.consumer";
    public static final String FAILED_AT = "dlq.failed.at";

    private static final Logger LOG = Logger.getLogger(DeadLetters.class);
    private static final int MAX_ERROR_LENGTH = 1000;

    private final String bootstrapServers;
    private volatile KafkaProducer<String, byte[]> producer;

    private final Duration sendTimeout;

    public DeadLetters(@ConfigProperty(name = "kafka.bootstrap.servers") String bootstrapServers, InboxSettings settings) {
        this.bootstrapServers = bootstrapServers;
        this.sendTimeout = settings.deadLetterTimeout();
    }

    Uni<Void> send(String consumer, IncomingKafkaRecordMetadata<?, ?> source, byte[] value, Throwable error) {
        String topic = Topics.deadLetterOf(source.getTopic());
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, null,
                source.getKey() == null ? null : source.getKey().toString(), value);
        for (Header header : source.getHeaders()) {
            record.headers().add(header.key(), header.value());
        }
        record.headers()
                .add(ERROR_CLASS, bytes(error.getClass().getName()))
                .add(ERROR_MESSAGE, bytes(truncate(String.valueOf(error.getMessage()))))
                .add(SOURCE_TOPIC, bytes(source.getTopic()))
                .add(SOURCE_PARTITION, bytes(Integer.toString(source.getPartition())))
                .add(SOURCE_OFFSET, bytes(Long.toString(source.getOffset())))
                .add(CONSUMER, bytes(consumer))
                .add(FAILED_AT, bytes(Instant.now().toString()));
        LOG.warnf("dead-lettering %s-%d@%d for %s: %s", source.getTopic(), source.getPartition(), source.getOffset(),
                consumer, error.toString());
        return Uni.createFrom().<Void>emitter(emitter -> producer().send(record, (metadata, failure) -> {
                    if (failure == null) {
                        emitter.complete(null);
                    } else {
                        emitter.fail(failure);
                    }
                }))
                .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
                .ifNoItem().after(sendTimeout).fail()
                .onFailure().transform(e -> new DeadLetterUnavailableException(topic, e))
                .onFailure().invoke(e -> LOG.warnf("%s; the record is kept and tried again", e.getMessage()));
    }

    private KafkaProducer<String, byte[]> producer() {
        if (producer == null) {
            synchronized (this) {
                if (producer == null) {
                    Properties config = new Properties();
                    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
                    config.put(ProducerConfig.ACKS_CONFIG, "all");
                    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
                    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) sendTimeout.toMillis());
                    // Kafka requires delivery.timeout.ms >= linger.ms + request.timeout.ms.
                    config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
                    config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) sendTimeout.toMillis());
                    config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) sendTimeout.toMillis() / 2);
                    config.put(ProducerConfig.CLIENT_ID_CONFIG, "umbra-dead-letters");
                    producer = new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
                }
            }
        }
        return producer;
    }

    @PreDestroy
    void close() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
    }

    private static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    private static String truncate(String message) {
        return message.length() <= MAX_ERROR_LENGTH ? message : message.substring(0, MAX_ERROR_LENGTH) + "…";
    }
}
