package dev.umbra.guild.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Many clients writing at once, over every write endpoint: each request gets an answer (never a 5xx,
 * never none), each committed change has exactly one event on Kafka, and a write that lost a race
 * (409) has none.
 */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "guild"), @ResourceArg(name = "outbox", value = "guild")})
class ConcurrentWritesIT {

    private static final int CLIENTS = 16;
    private static final int REQUESTS_PER_CLIENT = 140;
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(30);
    private static final int HOT_GUILDS = 3;
    @InjectDevstack
    Database db;

    @TestHTTPResource("/")
    URI base;

    private final HttpClient http = HttpClient.newBuilder().executor(Executors.newFixedThreadPool(4)).build();
    private final String token = Tokens.bot();

    record Outcome(String kind, String guildId, String detail, int status) {
    }

    @Test
    void everyRequestIsAnsweredAndEveryCommittedChangeHasExactlyOneEvent() throws Exception {
        List<String> hot = new ArrayList<>();
        for (int i = 0; i < HOT_GUILDS; i++) {
            String guildId = Snowflakes.random();
            assertThat(send("POST", "/guilds/" + guildId + "/installation", install()).statusCode()).isEqualTo(201);
            hot.add(guildId);
        }

        Queue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        List<Future<?>> running = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            running.add(clients.submit(() -> client(hot, outcomes)));
        }
        for (Future<?> client : running) {
            client.get();
        }
        clients.shutdown();

        assertThat(outcomes).hasSize(CLIENTS * REQUESTS_PER_CLIENT);
        assertThat(outcomes).filteredOn(o -> o.status() < 0).as("unanswered within " + ANSWER_WITHIN).isEmpty();
        assertThat(outcomes).filteredOn(o -> o.status() >= 500).as("server errors").isEmpty();
        assertThat(outcomes).filteredOn(o -> o.kind().equals("owner")).extracting(Outcome::status).containsOnly(200, 409);
        assertThat(outcomes).filteredOn(o -> !o.kind().equals("owner")).extracting(Outcome::status)
                .allMatch(status -> status == 200 || status == 201);

        List<Outcome> installs = of(outcomes, "install");
        List<Outcome> kicks = of(outcomes, "kick");
        List<Outcome> ownerChanges = of(outcomes, "owner").stream().filter(o -> o.status() == 200).toList();
        List<Outcome> lostRaces = of(outcomes, "owner").stream().filter(o -> o.status() == 409).toList();
        assertThat(db.count("select count(*) from guild where guild_id = any(string_to_array(?, ','))",
                installs.stream().map(Outcome::guildId).collect(Collectors.joining(",")))).isEqualTo(installs.size());

        try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.GUILD))) {
            int expected = installs.size() + kicks.size() + ownerChanges.size();
            var ours = hot.stream().collect(Collectors.toSet());
            installs.forEach(o -> ours.add(o.guildId()));
            Awaitility.await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                    .until(() -> topic.seen().stream().filter(r -> ours.contains(r.key())).count() >= expected + HOT_GUILDS);
            List<ConsumerRecord<String, byte[]>> records = topic.seen().stream().filter(r -> ours.contains(r.key())).toList();
            Map<String, Long> byTypeAndGuild = records.stream().collect(Collectors.groupingBy(
                    r -> KafkaProbe.header(r, EventHeaders.EVENT_TYPE) + "/" + r.key(), Collectors.counting()));
            Map<String, Long> expectedByTypeAndGuild = new java.util.TreeMap<>();
            hot.forEach(guildId -> expectedByTypeAndGuild.put("BotInstalled/" + guildId, 1L));
            installs.forEach(o -> expectedByTypeAndGuild.put("BotInstalled/" + o.guildId(), 1L));
            kicks.forEach(o -> expectedByTypeAndGuild.put("BotKicked/" + o.guildId(), 1L));
            ownerChanges.forEach(o -> expectedByTypeAndGuild.merge("GuildOwnerChanged/" + o.guildId(), 1L, Long::sum));
            assertThat(new java.util.TreeMap<>(byTypeAndGuild)).isEqualTo(expectedByTypeAndGuild);
            Map<String, Long> byNewOwner = records.stream()
                    .filter(r -> "GuildOwnerChanged".equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)))
                    .collect(Collectors.groupingBy(ConcurrentWritesIT::newOwner, Collectors.counting()));
            assertThat(byNewOwner).isEqualTo(ownerChanges.stream().collect(Collectors.toMap(Outcome::detail, o -> 1L)));
            assertThat(lostRaces).allMatch(o -> !byNewOwner.containsKey(o.detail()));
            // Each aggregate's events are numbered 1, 2, 3… in the order they committed, whatever the concurrency.
            records.stream().collect(Collectors.groupingBy(ConsumerRecord::key)).forEach((guildId, ofGuild) ->
                    assertThat(ofGuild.stream().map(r -> Long.parseLong(KafkaProbe.header(r, EventHeaders.SEQUENCE))).toList())
                            .as(guildId).isEqualTo(java.util.stream.LongStream.rangeClosed(1, ofGuild.size()).boxed().toList()));
            assertThat(records).hasSize(expected + HOT_GUILDS);
        }
    }

    @Test
    void racingFirstInstallsOfOneGuildCreateItOnceAndAnswerTheOthersAsRepeats() throws Exception {
        for (int round = 0; round < 5; round++) {
            String guildId = Snowflakes.random();
            List<Integer> answered = raced("POST", "/guilds/" + guildId + "/installation", install());

            assertThat(answered).as(guildId).containsOnly(200, 201).containsOnlyOnce(201);
            assertThat(db.count("select count(*) from guild where guild_id = ?", guildId)).isOne();
            String marker = Snowflakes.onSamePartitionAs(guildId, 3);
            assertThat(send("POST", "/guilds/" + marker + "/installation", install()).statusCode()).isEqualTo(201);
            try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.GUILD))) {
                topic.awaitRecord(r -> marker.equals(r.key()), Duration.ofSeconds(30));
                assertThat(topic.seen()).filteredOn(r -> guildId.equals(r.key())).hasSize(1);
            }
        }
    }

    @Test
    void racingKicksOfOneGuildKickItOnceAndAnswerTheOthersAsRepeats() throws Exception {
        for (int round = 0; round < 3; round++) {
            String guildId = Snowflakes.random();
            assertThat(send("POST", "/guilds/" + guildId + "/installation", install()).statusCode()).isEqualTo(201);
            List<Integer> answered = raced("DELETE", "/guilds/" + guildId + "/installation", null);

            assertThat(answered).as(guildId).containsOnly(200);
            String marker = Snowflakes.onSamePartitionAs(guildId, 3);
            assertThat(send("POST", "/guilds/" + marker + "/installation", install()).statusCode()).isEqualTo(201);
            try (KafkaProbe topic = KafkaProbe.read(Topics.of(Aggregates.GUILD))) {
                topic.awaitRecord(r -> marker.equals(r.key()), Duration.ofSeconds(30));
                assertThat(topic.seen()).filteredOn(r -> guildId.equals(r.key())).extracting(r -> KafkaProbe.header(r, EventHeaders.EVENT_TYPE))
                        .containsExactly("BotInstalled", "BotKicked");
            }
        }
    }

    /** The same request sent by eight clients at once; their statuses. */
    private List<Integer> raced(String method, String path, String body) throws Exception {
        var start = new java.util.concurrent.CountDownLatch(1);
        ExecutorService racers = Executors.newFixedThreadPool(8);
        List<Future<Integer>> statuses = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            statuses.add(racers.submit(() -> {
                start.await();
                return send(method, path, body).statusCode();
            }));
        }
        start.countDown();
        List<Integer> answered = new ArrayList<>();
        for (Future<Integer> status : statuses) {
            answered.add(status.get());
        }
        racers.shutdown();
        return answered;
    }

    /** One client: installs new guilds, kicks some of them, reads them, and races the others over the hot guilds' owner. */
    private void client(List<String> hot, Queue<Outcome> outcomes) {
        List<String> mine = new ArrayList<>();
        List<String> kickable = new ArrayList<>();
        for (int i = 0; i < REQUESTS_PER_CLIENT; i++) {
            switch (i % 5) {
                case 0, 1 -> {
                    String guildId = Snowflakes.random();
                    int status = send("POST", "/guilds/" + guildId + "/installation", install()).statusCode();
                    outcomes.add(new Outcome("install", guildId, "", status));
                    if (status == 201) {
                        mine.add(guildId);
                        kickable.add(guildId);
                    }
                }
                case 2 -> {
                    String guildId = hot.get(ThreadLocalRandom.current().nextInt(hot.size()));
                    String newOwner = Snowflakes.random();
                    int status = send("PUT", "/guilds/" + guildId + "/owner", "{\"ownerId\":\"" + newOwner + "\"}").statusCode();
                    outcomes.add(new Outcome("owner", guildId, newOwner, status));
                }
                case 3 -> {
                    String guildId = mine.isEmpty() ? hot.get(0) : mine.get(ThreadLocalRandom.current().nextInt(mine.size()));
                    outcomes.add(new Outcome("read", guildId, "", send("GET", "/guilds/" + guildId, null).statusCode()));
                }
                default -> {
                    if (kickable.isEmpty()) {
                        outcomes.add(new Outcome("read", hot.get(0), "", send("GET", "/guilds/" + hot.get(0), null).statusCode()));
                    } else {
                        String guildId = kickable.remove(0);
                        outcomes.add(new Outcome("kick", guildId, "", send("DELETE", "/guilds/" + guildId + "/installation", null).statusCode()));
                    }
                }
            }
        }
    }

    private record Answer(int statusCode) {
    }

    private Answer send(String method, String path, String json) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path.substring(1)))
                .timeout(ANSWER_WITHIN)
                .header("Authorization", "Bearer " + token);
        if (json != null) {
            request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        try {
            return new Answer(http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode());
        } catch (HttpTimeoutException e) {
            return new Answer(-1);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String install() {
        return "{\"installerUserId\":\"223456789012345678\"}";
    }

    private static List<Outcome> of(Queue<Outcome> outcomes, String kind) {
        return outcomes.stream().filter(o -> o.kind().equals(kind)).toList();
    }

    private static final java.util.regex.Pattern NEW_OWNER = java.util.regex.Pattern.compile("\"new_owner_id\"\\s*:\\s*\"(\\d+)\"");

    private static String newOwner(ConsumerRecord<String, byte[]> record) {
        var match = NEW_OWNER.matcher(KafkaProbe.value(record));
        return match.find() ? match.group(1) : "none";
    }
}
