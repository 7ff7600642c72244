package dev.umbra.testing;

import static io.restassured.RestAssured.given;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.JwtKeys;
import io.restassured.specification.RequestSpecification;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/** Bearer tokens signed with devstack's key, and the bad ones a service must refuse. */
public final class Tokens {

    private static final Duration LIFETIME = Duration.ofMinutes(10);

    /**
     * A subject's token is signed once and handed out again while it has more than half its lifetime ahead:
     * an RSA signature per request was among the hottest frames of a test JVM's profile.
     */
    private static final Map<List<String>, Minted> MINTED = new ConcurrentHashMap<>();

    private record Minted(String token, Instant reuseUntil) {
    }

    private Tokens() {
    }

    public static String bot() {
        return mint("discord-bot", "bot");
    }

    /** A person's token as billing reads it: the subject their Umbra user id, no Discord account named. */
    public static String user(String userId) {
        return mint(userId, "user");
    }

    /** A person's token: the subject their Umbra user id, claim {@code discord_user_id} their Discord account. */
    public static String person(String userId, String discordUserId) {
        return mint(List.of(userId, "user", discordUserId), () -> Devstack.shared().jwt()
                .mint(userId, List.of("user"), Map.of(JwtKeys.DISCORD_USER_ID, discordUserId), LIFETIME));
    }

    /** {@link #person} for a test that knows only the person's Discord account (its Umbra user id derived from it). */
    public static String discordUser(String discordUserId) {
        return person(UUID.nameUUIDFromBytes(("discord:" + discordUserId).getBytes(StandardCharsets.UTF_8)).toString(), discordUserId);
    }

    public static String admin() {
        return mint("operator", "admin");
    }

    public static String mint(String subject, String... roles) {
        List<String> key = new ArrayList<>();
        key.add(subject);
        key.addAll(List.of(roles));
        return mint(key, () -> Devstack.shared().jwt().mint(subject, List.of(roles), LIFETIME));
    }

    private static String mint(List<String> key, Supplier<String> signing) {
        Instant now = Instant.now();
        return MINTED.compute(key, (k, minted) -> minted != null && now.isBefore(minted.reuseUntil()) ? minted
                : new Minted(signing.get(), now.plus(LIFETIME.dividedBy(2)))).token();
    }

    /** Requests carrying a token a service must refuse with 401, by what is wrong with it: fresh ones at each call. */
    public static Map<String, RequestSpecification> unacceptable() {
        Map<String, RequestSpecification> refused = new LinkedHashMap<>();
        refused.put("no token", given());
        refused.put("expired", given().auth().oauth2(expiredBot()));
        refused.put("badly signed", given().auth().oauth2(forgedBot()));
        refused.put("no audience", given().auth().oauth2(botFor(null)));
        refused.put("another audience", given().auth().oauth2(botFor("billing-portal")));
        refused.put("lives too long", given().auth().oauth2(longLivedBot()));
        refused.put("not a JWT", given().auth().oauth2("not-a-token"));
        return refused;
    }

    /** A bot token whose lifetime ended a minute ago. */
    public static String expiredBot() {
        Instant now = Instant.now();
        return Devstack.shared().jwt().mint("discord-bot", List.of("bot"), JwtKeys.AUDIENCE, now.minus(LIFETIME), now.minusSeconds(60));
    }

    /** A well-signed bot token for {@code audience} (null: no audience at all). */
    public static String botFor(String audience) {
        Instant now = Instant.now();
        return Devstack.shared().jwt().mint("discord-bot", List.of("bot"), audience, now, now.plus(LIFETIME));
    }

    /** A bot token that lives longer than a service accepts. */
    public static String longLivedBot() {
        Instant now = Instant.now();
        return Devstack.shared().jwt().mint("discord-bot", List.of("bot"), JwtKeys.AUDIENCE, now,
                now.plus(JwtKeys.MAX_LIFETIME).plus(LIFETIME));
    }

    /** A bot token whose signature does not match its content: its claims were changed after signing. */
    public static String forgedBot() {
        String[] parts = bot().split("\\.");
        String claims = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
                .replace("\"discord-bot\"", "\"someone-else\"");
        return parts[0] + "." + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(claims.getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
    }
}
