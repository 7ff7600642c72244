package dev.umbra.platform.web;

import jakarta.json.JsonString;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * Who a {@code user} token speaks for, read alike by every service: its subject is the person's Umbra user id
 * (the {@code userId} guild-service's {@code POST /users} answers with), and claim {@value #DISCORD_USER_ID} their
 * Discord account, so that one token serves the person's billing and the guilds they own or join.
 */
public final class SignedInUser {

    /** The claim naming the person's Discord user id (a snowflake), set by whoever mints the token after Discord OAuth. */
    public static final String DISCORD_USER_ID = "discord_user_id";

    private SignedInUser() {
    }

    /** The person's Umbra user id: the token's subject. */
    public static String userId(JsonWebToken token) {
        return token.getSubject();
    }

    /** The person's Discord user id; 403 for a token that names none, or not as a snowflake. */
    public static String discordUserId(JsonWebToken token) {
        Object claim = token.getClaim(DISCORD_USER_ID);
        String discordId = claim instanceof JsonString json ? json.getString() : claim instanceof String text ? text : null;
        if (discordId == null || !discordId.matches("\\d{17,20}")) {
            throw ProblemException.forbidden("the token names no Discord account (claim " + DISCORD_USER_ID + ")");
        }
        return discordId;
    }
}
