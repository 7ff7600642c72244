package dev.umbra.billing.access;

import dev.umbra.platform.web.ProblemException;
import dev.umbra.platform.web.Roles;
import java.util.UUID;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * Who may act for a user: the bot (and, where an endpoint allows it, an operator) for anyone; a person
 * signed in only for themselves, the token's subject being their Umbra user id.
 */
public final class Caller {

    private Caller() {
    }

    /** 403 unless the token may act for {@code userId}. */
    public static void requireActingFor(JsonWebToken token, UUID userId) {
        if (!mayActFor(token, userId)) {
            throw forbidden();
        }
    }

    public static boolean mayActFor(JsonWebToken token, UUID userId) {
        if (actsForAnyone(token)) {
            return true;
        }
        return token.getGroups().contains(Roles.USER) && userId.toString().equals(token.getSubject());
    }

    /** The bot and operators see and act for every user. */
    public static boolean actsForAnyone(JsonWebToken token) {
        return token.getGroups().contains(Roles.BOT) || token.getGroups().contains(Roles.ADMIN);
    }

    public static ProblemException forbidden() {
        return new ProblemException(403, "Forbidden", "a user acts only on their own user id");
    }
}
