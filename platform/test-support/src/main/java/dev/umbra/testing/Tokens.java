package dev.umbra.testing;

import dev.umbra.devstack.Devstack;
import java.time.Duration;
import java.util.List;

/** Bearer tokens signed with devstack's key. */
public final class Tokens {

    private Tokens() {
    }

    public static String bot() {
        return mint("discord-bot", "bot");
    }

    public static String user(String userId) {
        return mint(userId, "user");
    }

    public static String admin() {
        return mint("operator", "admin");
    }

    public static String mint(String subject, String... roles) {
        return Devstack.shared().jwt().mint(subject, List.of(roles), Duration.ofMinutes(30));
    }
}
