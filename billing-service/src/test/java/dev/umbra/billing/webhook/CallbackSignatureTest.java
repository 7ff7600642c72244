package dev.umbra.billing.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class CallbackSignatureTest {

    private static final String SECRET = "0123456789abcdef0123456789abcdef";
    private static final Instant NOW = Instant.parse("2026-11-23T10:00:00Z");
    private static final byte[] BODY = "{\"eventType\":\"PAYMENT_STATUS_CHANGED\"}".getBytes(StandardCharsets.UTF_8);

    private final CallbackSignature signatures = new CallbackSignature(SECRET, Duration.ofMinutes(5));

    @Test
    void aFreshCallbackSignedWithTheSecretIsGenuine() {
        String timestamp = Long.toString(NOW.minusSeconds(30).getEpochSecond());
        assertThat(signatures.check("v1=" + hmac(SECRET, timestamp, BODY), timestamp, BODY, NOW)).isNull();
    }

    @Test
    void anotherSecretAnotherBodyOrAnotherTimestampIsForged() {
        String timestamp = Long.toString(NOW.getEpochSecond());
        assertThat(signatures.check("v1=" + hmac("another secret", timestamp, BODY), timestamp, BODY, NOW))
                .isEqualTo(CallbackSignature.Refusal.FORGED);
        assertThat(signatures.check("v1=" + hmac(SECRET, timestamp, BODY), timestamp, "{}".getBytes(StandardCharsets.UTF_8), NOW))
                .isEqualTo(CallbackSignature.Refusal.FORGED);
        String earlier = Long.toString(NOW.minusSeconds(1).getEpochSecond());
        assertThat(signatures.check("v1=" + hmac(SECRET, timestamp, BODY), earlier, BODY, NOW)).isEqualTo(CallbackSignature.Refusal.FORGED);
    }

    @Test
    void aTimestampOutsideTheReplayWindowEitherWayIsStaleEvenWhenSigned() {
        for (Instant at : new Instant[] {NOW.minus(Duration.ofMinutes(5)).minusSeconds(1), NOW.plus(Duration.ofMinutes(5)).plusSeconds(1)}) {
            String timestamp = Long.toString(at.getEpochSecond());
            assertThat(signatures.check("v1=" + hmac(SECRET, timestamp, BODY), timestamp, BODY, NOW)).isEqualTo(CallbackSignature.Refusal.STALE);
        }
        for (long far : new long[] {99_999_999_999_999_999L, Long.MAX_VALUE, Long.MIN_VALUE}) {
            String timestamp = Long.toString(far);
            assertThat(signatures.check("v1=" + hmac(SECRET, timestamp, BODY), timestamp, BODY, NOW)).isEqualTo(CallbackSignature.Refusal.STALE);
        }
        String edge = Long.toString(NOW.minus(Duration.ofMinutes(5)).getEpochSecond());
        assertThat(signatures.check("v1=" + hmac(SECRET, edge, BODY), edge, BODY, NOW)).isNull();
    }

    @Test
    void missingOrMalformedHeadersAndAMissingSecretAreRefused() {
        String timestamp = Long.toString(NOW.getEpochSecond());
        String signature = "v1=" + hmac(SECRET, timestamp, BODY);
        assertThat(signatures.check(null, timestamp, BODY, NOW)).isEqualTo(CallbackSignature.Refusal.MISSING);
        assertThat(signatures.check(signature, null, BODY, NOW)).isEqualTo(CallbackSignature.Refusal.MISSING);
        assertThat(signatures.check(signature, "yesterday", BODY, NOW)).isEqualTo(CallbackSignature.Refusal.MALFORMED);
        assertThat(signatures.check("v1=not-hex", timestamp, BODY, NOW)).isEqualTo(CallbackSignature.Refusal.MALFORMED);
        assertThat(signatures.check(signature.substring(3), timestamp, BODY, NOW)).isEqualTo(CallbackSignature.Refusal.MALFORMED);
        assertThat(new CallbackSignature(null, Duration.ofMinutes(5)).check(signature, timestamp, BODY, NOW))
                .isEqualTo(CallbackSignature.Refusal.NO_SECRET);
    }

    private static String hmac(String secret, String timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update((timestamp + ".").getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(mac.doFinal(body));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
