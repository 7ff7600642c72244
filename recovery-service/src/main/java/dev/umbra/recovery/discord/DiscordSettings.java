package dev.umbra.recovery.discord;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** Discord's HTTP API (devstack's sandbox in tests and the local run); the bot token comes from the environment. */
@ConfigMapping(prefix = "umbra.discord")
public interface DiscordSettings {

    @WithDefault("https://discord.com")
    String url();

    String botToken();

    Client client();

    interface Client {
        @WithDefault("1s")
        Duration connectTimeout();

        /** The whole exchange, from sending to the last byte of the answer. */
        @WithDefault("3s")
        Duration readTimeout();

        Retry retry();

        Circuit circuit();
    }

    /** Only calls that surely did not reach Discord (no connection, a 429) are sent again, at once and a few times. */
    interface Retry {
        @WithDefault("2")
        int maxRetries();

        @WithDefault("200ms")
        Duration initialDelay();

        @WithDefault("2s")
        Duration maxDelay();
    }

    interface Circuit {
        /** Calls looked at (the request volume threshold). */
        @WithDefault("8")
        int window();

        @WithDefault("0.5")
        double failureRatio();

        /** How long an open circuit refuses calls before one is let through. */
        @WithDefault("10s")
        Duration delay();
    }
}
