package dev.umbra.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.umbra.devstack.DiscordSandbox;
import dev.umbra.e2e.SystemClient.Subscribed;
import dev.umbra.testing.LogLines;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Discord away while the system works: clients subscribe guilds to PRO and some guilds kick the bot,
 * every call to Discord answering 503 for the whole of it and a while after. Nothing waits on Discord
 * but the owners' direct messages: every subscription and kick completes in every service, and once
 * Discord is back each owner is told each thing exactly once, nothing dead-lettered.
 */
@FaultSuite
class DiscordOutageIT {

    private static final String ACTIVE = "Your PRO subscription is active. Thank you!";
    private static final String PAUSED = "Umbra is paused for your server (BOT_KICKED).";
    private static final int CLIENTS = 4;
    private static final int GUILDS_PER_CLIENT = 2;
    private static final Duration MESSAGES_AFTER_RECOVERY = Duration.ofSeconds(90);

    /** What guild-service says while Discord is away, and only that. */
    private static final LogLines.Expectation[] DISCORD_AWAY = {
        new LogLines.Expectation("dev.umbra.guild.notification.DiscordMessenger", "WARN", "circuit"),
        new LogLines.Expectation("dev.umbra.platform.workqueue.WorkQueues", "WARN", "discord")};

    private final SystemClient umbra = new SystemClient();
    private final DiscordSandbox discord = umbra.discord();

    @AfterEach
    void discordBack() {
        discord.recover();
    }

    @AfterAll
    static void logsAreClean() {
        RunningSystem.assertCleanLogs(DISCORD_AWAY);
    }

    @Test
    void aDiscordOutageDelaysOnlyTheMessagesAndEachOwnerIsToldEachThingOnce() throws Exception {
        SystemInvariants.Mark mark = SystemInvariants.mark();
        discord.fail(-1);
        List<Subscribed> subscribed = Collections.synchronizedList(new ArrayList<>());
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        List<Future<?>> running = new ArrayList<>();
        for (int client = 0; client < CLIENTS; client++) {
            running.add(clients.submit(() -> {
                for (int i = 0; i < GUILDS_PER_CLIENT; i++) {
                    subscribed.add(umbra.subscribedToPro());
                }
                return null;
            }));
        }
        for (Future<?> client : running) {
            client.get();
        }
        clients.shutdown();
        // every other guild kicks the bot: its license is suspended, and its owner is to hear of that too
        List<Subscribed> kicked = new ArrayList<>();
        for (int i = 0; i < subscribed.size(); i += 2) {
            Subscribed paid = subscribed.get(i);
            await().atMost(SystemClient.TIMEOUT).untilAsserted(() -> umbra.entitlements(paid.guildId()).body("entitledPlan", equalTo("PRO")));
            umbra.kick(paid.guildId());
            kicked.add(paid);
        }
        for (Subscribed paid : subscribed) {
            await().atMost(SystemClient.TIMEOUT).untilAsserted(() -> umbra.entitlements(paid.guildId())
                    .body("status", equalTo(kicked.contains(paid) ? "SUSPENDED" : "ACTIVE"))
                    .body("entitledPlan", equalTo(kicked.contains(paid) ? "FREE" : "PRO")));
        }
        // the outage outlasts the work by a while: messages are tried, refused, and wait
        SystemClient.pause(Duration.ofSeconds(15));
        assertThat(subscribed).allSatisfy(paid -> assertThat(umbra.toldTo(paid.owner())).isEmpty());

        discord.recover();

        for (Subscribed paid : subscribed) {
            int expected = kicked.contains(paid) ? 2 : 1;
            await().atMost(MESSAGES_AFTER_RECOVERY).until(() -> umbra.toldTo(paid.owner()).size() >= expected);
        }
        // and nothing more comes: each told once
        SystemClient.pause(Duration.ofSeconds(3));
        for (Subscribed paid : subscribed) {
            List<String> told = umbra.toldTo(paid.owner());
            assertThat(told).as("told to the owner of %s", paid.guildId()).containsOnlyOnce(ACTIVE);
            if (kicked.contains(paid)) {
                assertThat(told).hasSize(2).containsOnlyOnce(PAUSED);
            } else {
                assertThat(told).hasSize(1);
            }
        }
        SystemInvariants.assertHold("a Discord outage", mark);
    }
}
