package dev.umbra.platform.web;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.annotation.Priority;
import jakarta.decorator.Decorator;
import jakarta.decorator.Delegate;
import jakarta.enterprise.inject.Any;
import jakarta.inject.Inject;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import javax.crypto.SecretKey;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * Verifies a bearer token once for as long as it is valid. The bot sends the same token with every
 * command, and each request verified it again: base64, two JSON parses and an RSA signature, about
 * 100 KB of garbage per request, more CPU than the entitlement read it guards (./bench
 * entitlement-reads). A token is found again only by its exact text, signature included, so nothing
 * but a token that was verified whole is ever taken from here; it is forgotten at its {@code exp}, on
 * the same wall clock the verification reads (no clock skew allowed, so never later than a fresh
 * verification would refuse it). A failed verification is never kept. {@code umbra.jwt.verifications}
 * counts the verifications, by outcome.
 */
@Decorator
@Priority(1)
public class VerifiedTokens implements JWTParser {

    private final JWTParser parser;
    private final LongSupplier wallClockSeconds;
    private final int capacity;
    private final Counter accepted;
    private final Counter refused;
    private final Map<String, Verified> verified = new ConcurrentHashMap<>();

    record Verified(JsonWebToken token, long expiresAtSecond) {
    }

    @Inject
    public VerifiedTokens(@Delegate @Any JWTParser parser, MeterRegistry registry,
            @ConfigProperty(name = "umbra.jwt.verified-tokens.capacity", defaultValue = "10000") int capacity) {
        this(parser, registry, () -> System.currentTimeMillis() / 1000, capacity);
    }

    VerifiedTokens(JWTParser parser, MeterRegistry registry, LongSupplier wallClockSeconds, int capacity) {
        this.parser = parser;
        this.wallClockSeconds = wallClockSeconds;
        this.capacity = capacity;
        this.accepted = verifications(registry, "accepted");
        this.refused = verifications(registry, "refused");
    }

    private static Counter verifications(MeterRegistry registry, String outcome) {
        return Counter.builder("umbra.jwt.verifications").description("Bearer tokens verified (signature and claims), not found verified before")
                .tag("outcome", outcome).register(registry);
    }

    @Override
    public JsonWebToken parse(String token) throws ParseException {
        long now = wallClockSeconds.getAsLong();
        Verified known = verified.get(token);
        if (known != null && now < known.expiresAtSecond()) {
            return known.token();
        }
        JsonWebToken parsed;
        try {
            parsed = parser.parse(token);
        } catch (ParseException | RuntimeException e) {
            refused.increment();
            throw e;
        }
        accepted.increment();
        remember(token, parsed, now);
        return parsed;
    }

    private void remember(String token, JsonWebToken parsed, long now) {
        long expiresAt = parsed.getExpirationTime();
        if (expiresAt <= now) {
            return;
        }
        if (verified.size() >= capacity) {
            verified.values().removeIf(entry -> entry.expiresAtSecond() <= now);
            if (verified.size() >= capacity) {
                // more live tokens than the bound: the newcomer is verified on every request, as without this class
                return;
            }
        }
        verified.put(token, new Verified(parsed, expiresAt));
    }

    int size() {
        return verified.size();
    }

    @Override
    public JsonWebToken parse(String token, JWTAuthContextInfo context) throws ParseException {
        return parser.parse(token, context);
    }

    @Override
    public JsonWebToken verify(String token, PublicKey key) throws ParseException {
        return parser.verify(token, key);
    }

    @Override
    public JsonWebToken verify(String token, SecretKey key) throws ParseException {
        return parser.verify(token, key);
    }

    @Override
    public JsonWebToken verify(String token, String secret) throws ParseException {
        return parser.verify(token, secret);
    }

    @Override
    public JsonWebToken decrypt(String token, PrivateKey key) throws ParseException {
        return parser.decrypt(token, key);
    }

    @Override
    public JsonWebToken decrypt(String token, SecretKey key) throws ParseException {
        return parser.decrypt(token, key);
    }

    @Override
    public JsonWebToken decrypt(String token, String secret) throws ParseException {
        return parser.decrypt(token, secret);
    }

    @Override
    public JsonWebToken parseOnly(String token) throws ParseException {
        return parser.parseOnly(token);
    }
}
