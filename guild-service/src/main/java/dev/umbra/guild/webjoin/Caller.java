package dev.umbra.guild.webjoin;

import dev.umbra.platform.web.ProblemException;
import org.eclipse.microprofile.jwt.JsonWebToken;

/** The signed-in person making a web-join call: the token's subject, a Discord user id. */
final class Caller {

    private Caller() {
    }

    static String discordId(JsonWebToken token) {
        String subject = token.getSubject();
        if (subject == null || !subject.matches("\\d{17,20}")) {
            throw new ProblemException(403, "Forbidden", "the token's subject is not a Discord user id");
        }
        return subject;
    }
}
