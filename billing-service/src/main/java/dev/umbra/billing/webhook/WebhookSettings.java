package dev.umbra.billing.webhook;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** {@code billing.webhooks.*}: how old a signed callback may be, and how far ahead the monthly partitions of webhook_events are made. */
@ConfigMapping(prefix = "billing.webhooks")
public interface WebhookSettings {

    /** A callback whose timestamp is further from now than this (either way) is refused as a replay. */
    @WithDefault("PT5M")
    Duration replayWindow();

    /** Monthly partitions kept ready after the current month. */
    @WithDefault("3")
    int partitionsAhead();
}
