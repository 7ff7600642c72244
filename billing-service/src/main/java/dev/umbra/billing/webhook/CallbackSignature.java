package dev.umbra.billing.webhook;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The payment gateway's callback signature: {@code v1=<hex HMAC-SHA256 of "<timestamp>.<body>">} with
 * the callback secret, the timestamp in epoch seconds in its own header. A callback is genuine when the
 * HMAC matches (compared in constant time) and its timestamp is within the replay window of now, either
 * way: a captured callback cannot be played again later, and a signed one cannot be dated ahead.
 */
final class CallbackSignature {

    /** Why a callback was refused; the detail of the 401. */
    enum Refusal {
        NO_SECRET("callbacks are refused: no callback secret is configured"),
        MISSING("the signature or timestamp header is missing"),
        MALFORMED("the signature or timestamp header is malformed"),
        STALE("the timestamp is outside the replay window"),
        FORGED("the signature does not match");

        final String detail;

        Refusal(String detail) {
            this.detail = detail;
        }
    }

    private static final String SCHEME = "v1=";

    private final byte[] secret;
    private final Duration replayWindow;

    CallbackSignature(String secret, Duration replayWindow) {
        this.secret = secret == null || secret.isEmpty() ? null : secret.getBytes(StandardCharsets.UTF_8);
        this.replayWindow = replayWindow;
    }

    /** Null when the callback is genuine and fresh; else why not. */
    Refusal check(String signature, String timestamp, byte[] body, Instant now) {
        if (secret == null) {
            return Refusal.NO_SECRET;
        }
        if (signature == null || timestamp == null) {
            return Refusal.MISSING;
        }
        long seconds;
        byte[] claimed;
        try {
            seconds = Long.parseLong(timestamp.trim());
            if (!signature.startsWith(SCHEME)) {
                return Refusal.MALFORMED;
            }
            claimed = HexFormat.of().parseHex(signature.substring(SCHEME.length()).trim());
        } catch (IllegalArgumentException malformed) {
            return Refusal.MALFORMED;
        }
        // compared in seconds: a timestamp far outside Instant's range is stale, not an exception
        long window = replayWindow.toSeconds();
        if (seconds < now.getEpochSecond() - window || seconds > now.getEpochSecond() + window) {
            return Refusal.STALE;
        }
        return MessageDigest.isEqual(claimed, hmac(timestamp.trim(), body)) ? null : Refusal.FORGED;
    }

    private byte[] hmac(String timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update((timestamp + ".").getBytes(StandardCharsets.UTF_8));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
