package dev.umbra.recovery.discord;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smallrye.mutiny.Uni;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BotUserTest {

    @Test
    void discordIsAskedOnceItHasAnswered() {
        AtomicInteger asked = new AtomicInteger();
        BotUser bot = new BotUser(() -> {
            asked.incrementAndGet();
            return Uni.createFrom().item("100000000000000042");
        });

        assertThat(bot.id().await().indefinitely()).isEqualTo("100000000000000042");
        assertThat(bot.id().await().indefinitely()).isEqualTo("100000000000000042");
        assertThat(asked).hasValue(1);
    }

    @Test
    void aQuestionDiscordDidNotAnswerIsAskedAgainNextTime() {
        AtomicInteger asked = new AtomicInteger();
        BotUser bot = new BotUser(() -> asked.incrementAndGet() == 1
                ? Uni.createFrom().failure(DiscordFault.failed(503))
                : Uni.createFrom().item("100000000000000042"));

        assertThatThrownBy(() -> bot.id().await().indefinitely()).isInstanceOf(DiscordFault.class);
        assertThat(bot.id().await().indefinitely()).isEqualTo("100000000000000042");
        assertThat(asked).hasValue(2);
    }
}
