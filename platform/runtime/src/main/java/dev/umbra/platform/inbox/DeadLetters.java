package dev.umbra.platform.inbox;

import dev.umbra.events.Topics;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.logging.Logger;

/**
 * Sends a record that cannot be applied to {@code <topic>.dlq}: same key, value and headers (so it can
 * be re-produced as it was), plus the error and where it came from. A send is bounded (a timeout and
 * a few retries): if Kafka does not take it, the send fails and the inbox tries the record again later,
 * so a record is neither lost nor waits forever on one send. A record that our headers make larger than
 * Kafka takes (one near its size limit) goes without its value, marked {@value #VALUE_OMITTED}: its source
 * offset still holds it, where a send that can never succeed would hold its partition for good.
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
    public static final String VALUE_OMITTED = "dlq.value.omitted";

    private static final Logger LOG = Logger.getLogger(DeadLetters.class);
    private static final int MAX_ERROR_LENGTH = 1000;

    /** The service's {@code kafka.*} client settings (Quarkus' default broker: servers, TLS, SASL), as the channels have them. */
    private final Map<String, Object> kafka;
    private final InboxConfig.DeadLetter config;
    private volatile KafkaProducer<String, byte[]> producer;

    public DeadLetters(@Identifier("default-kafka-broker") Map<String, Object> kafka, InboxConfig config) {
        this.kafka = kafka;
        this.config = config.deadLetter();
    }

    /** Sends the dead letter of {@code source}; logged once it is sent, as a try that fails is tried again. */
    Uni<Void> send(String consumer, ConsumerRecord<?, byte[]> source, Throwable error) {
        Instant failedAt = Instant.now();
        return produce(letter(consumer, source, error, failedAt, source.value()))
                .onFailure(RecordTooLargeException.class).recoverWithUni(tooLarge -> {
                    ProducerRecord<String, byte[]> withoutValue = letter(consumer, source, error, failedAt, null);
                    withoutValue.headers().add(VALUE_OMITTED, bytes("the record with these headers is larger than Kafka takes; its value is at "
                            + "the source offset"));
                    return produce(withoutValue);
                })
                .invoke(() -> LOG.warnf("dead-lettering %s-%d@%d for %s: %s", source.topic(), source.partition(), source.offset(),
                        consumer, error.toString()));
    }

    private static ProducerRecord<String, byte[]> letter(String consumer, ConsumerRecord<?, byte[]> source, Throwable error, Instant failedAt,
            byte[] value) {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(Topics.deadLetterOf(source.topic()), null,
                source.key() == null ? null : source.key().toString(), value);
        for (Header header : source.headers()) {
            record.headers().add(header.key(), header.value());
        }
        record.headers()
                .add(ERROR_CLASS, bytes(error.getClass().getName()))
                .add(ERROR_MESSAGE, bytes(truncate(String.valueOf(error.getMessage()))))
                .add(SOURCE_TOPIC, bytes(source.topic()))
                .add(SOURCE_PARTITION, bytes(Integer.toString(source.partition())))
                .add(SOURCE_OFFSET, bytes(Long.toString(source.offset())))
                .add(CONSUMER, bytes(consumer))
                .add(FAILED_AT, bytes(failedAt.toString()));
        return record;
    }

    private Uni<Void> produce(ProducerRecord<String, byte[]> record) {
        return Uni.createFrom().<Void>emitter(emitter -> producer().send(record, (metadata, failure) -> {
                    if (failure == null) {
                        emitter.complete(null);
                    } else {
                        emitter.fail(failure);
                    }
                }))
                .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
                .ifNoItem().after(config.timeout()).fail()
                .onFailure(failure -> !(failure instanceof RecordTooLargeException)).retry()
                .withBackOff(Duration.ofMillis(200), config.timeout()).atMost(config.retries());
    }

    private KafkaProducer<String, byte[]> producer() {
        if (producer == null) {
            synchronized (this) {
                if (producer == null) {
                    Properties settings = new Properties();
                    // the producer's own settings of them (a secured cluster's alike), and the name of the TLS configuration
                    // Quarkus' SSL engine factory reads (kafka.tls-configuration-name); others would each be logged as unknown
                    kafka.forEach((name, value) -> {
                        if (ProducerConfig.configNames().contains(name) || name.equals("tls-configuration-name")) {
                            settings.put(name, value);
                        }
                    });
                    settings.put(ProducerConfig.ACKS_CONFIG, "all");
                    settings.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
                    int timeoutMs = (int) config.timeout().toMillis();
                    settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeoutMs);
                    settings.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs);
                    settings.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeoutMs + 1000);
                    settings.put(ProducerConfig.CLIENT_ID_CONFIG, "umbra-dead-letters");
                    producer = new KafkaProducer<>(settings, new StringSerializer(), new ByteArraySerializer());
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
