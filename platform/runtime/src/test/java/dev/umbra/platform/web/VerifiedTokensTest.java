package dev.umbra.platform.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.smallrye.jwt.auth.principal.DefaultJWTCallerPrincipal;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.SecretKey;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.junit.jupiter.api.Test;

class VerifiedTokensTest {

    private static final Instant NOW = Instant.parse("2026-11-27T01:00:00Z");

    private final CountingParser parser = new CountingParser();
    private final AtomicLong clock = new AtomicLong(NOW.getEpochSecond());
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void aTokenIsVerifiedOnceWhileItIsValidAndAgainOnceItExpired() throws ParseException {
        parser.valid("bot", NOW.plusSeconds(600));
        VerifiedTokens tokens = new VerifiedTokens(parser, registry, clock::get, 10);

        JsonWebToken first = tokens.parse("bot");
        clock.addAndGet(599);
        assertThat(tokens.parse("bot")).isSameAs(first);
        assertThat(parser.verifications).containsExactly("bot");

        clock.addAndGet(1);
        parser.refuse("bot");
        assertThatThrownBy(() -> tokens.parse("bot")).isInstanceOf(ParseException.class);
        assertThat(parser.verifications).containsExactly("bot", "bot");
    }

    @Test
    void aRefusedTokenIsVerifiedEveryTime() {
        parser.refuse("forged");
        VerifiedTokens tokens = new VerifiedTokens(parser, registry, clock::get, 10);

        assertThatThrownBy(() -> tokens.parse("forged")).isInstanceOf(ParseException.class);
        assertThatThrownBy(() -> tokens.parse("forged")).isInstanceOf(ParseException.class);
        assertThat(parser.verifications).containsExactly("forged", "forged");
        assertThat(tokens.size()).isZero();
        assertThat(registry.get("umbra.jwt.verifications").tag("outcome", "refused").counter().count()).isEqualTo(2);
    }

    @Test
    void aTokenDiffersFromAnotherByEveryCharacterIncludingItsSignature() throws ParseException {
        parser.valid("header.claims.signature", NOW.plusSeconds(600));
        parser.refuse("header.claims.signaturf");
        VerifiedTokens tokens = new VerifiedTokens(parser, registry, clock::get, 10);

        tokens.parse("header.claims.signature");
        assertThatThrownBy(() -> tokens.parse("header.claims.signaturf")).isInstanceOf(ParseException.class);
    }

    @Test
    void whenFullTheExpiredMakeRoomAndWithoutRoomANewTokenIsVerifiedEachTime() throws ParseException {
        parser.valid("short", NOW.plusSeconds(10));
        parser.valid("long", NOW.plusSeconds(600));
        parser.valid("newcomer", NOW.plusSeconds(600));
        parser.valid("latecomer", NOW.plusSeconds(600));
        VerifiedTokens tokens = new VerifiedTokens(parser, registry, clock::get, 2);
        tokens.parse("short");
        tokens.parse("long");

        clock.addAndGet(10);
        tokens.parse("newcomer");
        assertThat(tokens.size()).isEqualTo(2);

        tokens.parse("latecomer");
        tokens.parse("latecomer");
        assertThat(tokens.size()).isEqualTo(2);
        assertThat(parser.verifications).containsExactly("short", "long", "newcomer", "latecomer", "latecomer");
        tokens.parse("long");
        tokens.parse("newcomer");
        assertThat(parser.verifications).hasSize(5);
    }

    /** Stands in for smallrye-jwt's verification: which tokens it accepts until when, and what it was asked. */
    private static final class CountingParser implements JWTParser {

        final List<String> verifications = new ArrayList<>();
        private final Map<String, Instant> accepted = new HashMap<>();

        void valid(String token, Instant expiresAt) {
            accepted.put(token, expiresAt);
        }

        void refuse(String token) {
            accepted.remove(token);
        }

        @Override
        public JsonWebToken parse(String token) throws ParseException {
            verifications.add(token);
            Instant expiresAt = accepted.get(token);
            if (expiresAt == null) {
                throw new ParseException("refused");
            }
            JwtClaims claims = new JwtClaims();
            claims.setSubject(token);
            claims.setExpirationTime(NumericDate.fromSeconds(expiresAt.getEpochSecond()));
            return new DefaultJWTCallerPrincipal(claims);
        }

        @Override
        public JsonWebToken parse(String token, JWTAuthContextInfo context) {
            throw new UnsupportedOperationException();
        }

        @Override
        public JsonWebToken verify(String token, PublicKey key) {
            throw new UnsupportedOperationException();
        }

        @Override
        public JsonWebToken verify(String token, SecretKey key) {
            throw new UnsupportedOperationException();
        }

        @Override
        public JsonWebToken verify(String token, String secret) {
            throw new UnsupportedOperationException();
        }

        @Override
        public JsonWebToken decrypt(String token, PrivateKey key) {
            throw new UnsupportedOperationException();
        }

        @Override
        public JsonWebToken decrypt(String token, SecretKey key) {
            throw new UnsupportedOperationException();
        }

        @Override
        public JsonWebToken decrypt(String token, String secret) {
            throw new UnsupportedOperationException();
        }

        @Override
        public JsonWebToken parseOnly(String token) {
            throw new UnsupportedOperationException();
        }
    }
}
