package dev.umbra.billing;

import static dev.umbra.billing.BillingFixtures.newKey;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.devstack.PaymentGatewaySandbox.Charge;
import dev.umbra.testing.Database;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the subscription ITs start from (billing's outbox streamed by the test resource's {@code outbox} argument): a healthy gateway with closed
 * circuits, and a new user with a billing key; and how they read the sandbox's charges and the events.
 */
public abstract class PayingUserTest {

    protected static final Duration WAIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    @InjectDevstack
    protected Database db;

    @InjectDevstack
    protected PaymentGatewaySandbox gateway;

    @Inject
    protected CircuitBreakerMaintenance circuits;

    protected UUID user;
    protected UUID key;

    @BeforeEach
    void aUserWithABillingKey() {
        gateway.recover();
        circuits.resetAll();
        user = UUID.randomUUID();
        key = newKey(user);
    }

    /** What the sandbox charged for the subscription (every idempotency key of its charges names it). */
    protected List<Charge> chargesOf(UUID subscriptionId) {
        return gateway.charges().stream().filter(c -> c.idempotencyKey() != null && c.idempotencyKey().startsWith("sub-" + subscriptionId))
                .toList();
    }

    protected static JsonNode payload(ConsumerRecord<String, byte[]> record) {
        try {
            return JSON.readTree(KafkaProbe.value(record));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
