package dev.umbra.e2e;

import static dev.umbra.e2e.SystemClient.TIMEOUT;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.events.Aggregates;
import dev.umbra.events.EventHeaders;
import dev.umbra.events.Topics;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.restassured.http.ContentType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A consumer service killed with SIGKILL in the middle of a burst and started again: the records it
 * had applied but not yet acknowledged to Kafka come again and are recognised; none is lost, none is
 * applied twice, and no event is published twice.
 */
class ConsumerCrashIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CLIENTS = 4;
    private static final int INSTALLS_BEFORE = 60;
    private static final int INSTALLS_AFTER = 60;

    private final LocalSystem system = RunningSystem.get();
    private final SystemClient umbra = new SystemClient();

    @AfterAll
    static void logsAreClean() {
        RunningSystem.assertCleanLogs();
    }

    @Test
    void licensingKilledMidBurstGrantsEachGuildExactlyOneLicense() throws Exception {
        List<String> before = guilds(INSTALLS_BEFORE);
        List<String> after = guilds(INSTALLS_AFTER);

        installAll(before);
        system.crash("licensing");
        // the burst goes on while the consumer is down: guild-service does not depend on it
        installAll(after);
        system.restart("licensing");

        List<String> all = new ArrayList<>(before);
        all.addAll(after);
        await().atMost(TIMEOUT).until(() -> all.stream().allMatch(this::licensed));
        SystemClient.awaitAllConsumed();

        Map<String, Long> grantedPerGuild = grantsPerGuild(all);
        assertThat(grantedPerGuild).as("LicenseGranted per guild").hasSize(all.size()).allSatisfy((guild, grants) -> assertThat(grants)
                .as("grants for guild %s", guild).isEqualTo(1L));
    }

    private static List<String> guilds(int count) {
        return IntStream.range(0, count).mapToObj(i -> Snowflakes.random()).toList();
    }

    private void installAll(List<String> guilds) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<Integer>> answers = guilds.stream().map(guildId -> clients.submit(() -> given().baseUri(system.url("guild"))
                    .auth().oauth2(Tokens.bot()).contentType(ContentType.JSON)
                    .body(Map.of("installerUserId", Snowflakes.random()))
                    .when().post("/guilds/{id}/installation", guildId)
                    .then().extract().statusCode())).toList();
            for (Future<Integer> answer : answers) {
                assertThat(answer.get()).isEqualTo(201);
            }
        } finally {
            clients.shutdownNow();
        }
    }

    private boolean licensed(String guildId) {
        return given().baseUri(system.url("licensing")).auth().oauth2(Tokens.bot())
                .when().get("/guilds/{id}/license", guildId).statusCode() == 200;
    }

    /**
     * LicenseGranted records on the license topic for these guilds, counted per guild: read until every
     * guild has one, then for a few seconds more, so that a second grant on its way through Debezium
     * would be counted too.
     */
    private static Map<String, Long> grantsPerGuild(List<String> guilds) {
        try (KafkaProbe licenses = KafkaProbe.read(Topics.of(Aggregates.LICENSE))) {
            await().atMost(TIMEOUT).until(() -> grants(licenses.seen(), guilds).size() == guilds.size());
            Map<String, Long> counted = grants(licenses.seen(), guilds);
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(6)).until(() -> grants(licenses.seen(), guilds).equals(counted));
            return counted;
        }
    }

    private static Map<String, Long> grants(List<ConsumerRecord<String, byte[]>> records, List<String> guilds) {
        return records.stream()
                .filter(r -> "LicenseGranted".equals(KafkaProbe.header(r, EventHeaders.EVENT_TYPE)))
                .map(ConsumerCrashIT::guildOf)
                .filter(guilds::contains)
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    }

    private static String guildOf(ConsumerRecord<String, byte[]> record) {
        try {
            return JSON.readTree(record.value()).path("guild_id").asText();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
