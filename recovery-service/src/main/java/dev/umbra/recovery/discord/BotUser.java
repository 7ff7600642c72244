package dev.umbra.recovery.discord;

import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.function.Supplier;

/**
 * The Discord user Umbra's bot token belongs to, asked of Discord the first time it is needed and kept from then on:
 * a deployment has nothing to configure, and a token can never be paired with another bot's id by mistake. A failed
 * question is not kept, so the next need asks again.
 */
@ApplicationScoped
public class BotUser {

    private final Supplier<Uni<String>> askDiscord;
    private volatile String id;

    @Inject
    BotUser(DiscordGuilds discord) {
        this(discord::botUserId);
    }

    BotUser(Supplier<Uni<String>> askDiscord) {
        this.askDiscord = askDiscord;
    }

    public Uni<String> id() {
        String known = id;
        if (known != null) {
            return Uni.createFrom().item(known);
        }
        return Uni.createFrom().deferred(askDiscord::get).invoke(found -> id = found);
    }
}
