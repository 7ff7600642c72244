package dev.umbra.billing.access;

import dev.umbra.platform.web.ProblemException;
import dev.umbra.platform.web.Roles;
import dev.umbra.platform.web.SignedInUser;
import java.util.UUID;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * Who may act for a user: the bot (and, where an endpoint allows it, an operator) for anyone; a person
 * signed in only for themselves ({@link SignedInUser#userId}).
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
        return token.getGroups().contains(Roles.USER) && userId.toString().equals(SignedInUser.userId(token));
    }

    /** The bot and operators see and act for every user. */
    public static boolean actsForAnyone(JsonWebToken token) {
        return token.getGroups().contains(Roles.BOT) || token.getGroups().contains(Roles.ADMIN);
    }

    public static ProblemException forbidden() {
        return ProblemException.forbidden("a user acts only on their own user id");
    }
}
