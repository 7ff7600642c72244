package dev.umbra.audit.query;

import static dev.umbra.audit.AuditFixtures.guildOf;
import static dev.umbra.audit.AuditFixtures.record;
import static dev.umbra.audit.AuditFixtures.recordedAt;
import static dev.umbra.audit.AuditFixtures.stored;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import dev.umbra.events.guild.BotInstalled;
import dev.umbra.events.licensing.LicenseExtended;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.events.recovery.SnapshotCreated;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** Reading the audit log: filters, who may read what, what was known when, and pages that hold still while events arrive. */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = @ResourceArg(name = "database", value = "audit"))
class QueryIT {

    @InjectDevstack
    Database db;

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Instant BASE = Instant.parse("2026-11-02T10:00:00Z");

    private static ValidatableResponse get(String token, String path) {
        return given().header("Authorization", "Bearer " + token).get(path).then();
    }

    private static List<String> ids(ValidatableResponse response) {
        return response.statusCode(200).extract().jsonPath().getList("events.eventId", String.class);
    }

    private void awaitAttributed(List<UUID> ids, String guild) {
        await().atMost(WAIT).until(() -> ids.stream().allMatch(id -> guild.equals(guildOf(db, id))));
    }

    @Test
    void eventsAreFilteredByGuildAggregateTypeAndTime() {
        String guild = Snowflakes.random();
        String other = Snowflakes.random();
        UUID license = UUID.randomUUID();
        UUID installed = UUID.randomUUID();
        UUID granted = UUID.randomUUID();
        UUID extended = UUID.randomUUID();
        UUID snapshot = UUID.randomUUID();
        UUID elsewhere = UUID.randomUUID();
        KafkaProbe.produceAll(List.of(
                record(new LicenseExtended(license, BASE.plus(30, ChronoUnit.DAYS)), extended, BASE.plusSeconds(3)),
                record(new BotInstalled(guild, Snowflakes.random()), installed, BASE),
                record(new LicenseGranted(license, guild, "PRO"), granted, BASE.plusSeconds(1)),
                record(new SnapshotCreated(UUID.randomUUID(), guild, "manual"), snapshot, BASE.plusSeconds(2)),
                record(new BotInstalled(other, Snowflakes.random()), elsewhere, BASE.plusSeconds(1))));
        awaitAttributed(List.of(installed, granted, extended, snapshot), guild);
        awaitAttributed(List.of(elsewhere), other);

        String admin = Tokens.admin();
        get(admin, "/audit/guilds/" + guild + "/timeline").statusCode(200)
                .body("events.eventId", equalTo(List.of(installed.toString(), granted.toString(), snapshot.toString(), extended.toString())))
                .body("events[0].guildId", equalTo(guild))
                .body("events[0].eventType", equalTo("BotInstalled"))
                .body("events[0].occurredAt", equalTo(BASE.toString()))
                .body("events[0].source.topic", equalTo("umbra.guild"))
                .body("next", equalTo(null));
        assertThat(ids(get(admin, "/audit/events?guildId=" + guild))).containsExactly(extended.toString(), snapshot.toString(),
                granted.toString(), installed.toString());
        assertThat(ids(get(admin, "/audit/events?guildId=" + guild + "&eventType=LicenseExtended"))).containsExactly(extended.toString());
        assertThat(ids(get(admin, "/audit/events?aggregateType=license&aggregateId=" + license + "&order=asc")))
                .containsExactly(granted.toString(), extended.toString());
        assertThat(ids(get(admin, "/audit/guilds/" + guild + "/timeline?from=" + BASE.plusSeconds(1) + "&to=" + BASE.plusSeconds(3))))
                .containsExactly(granted.toString(), snapshot.toString());
        assertThat(ids(get(admin, "/audit/events?aggregateType=guild&aggregateId=" + other))).containsExactly(elsewhere.toString());
    }

    @Test
    void theBotReadsOnlyTheGuildItNamesAndAPersonNothing() {
        String guild = Snowflakes.random();
        UUID installed = UUID.randomUUID();
        KafkaProbe.produceAll(List.of(record(new BotInstalled(guild, Snowflakes.random()), installed, BASE)));
        awaitAttributed(List.of(installed), guild);

        assertThat(ids(get(Tokens.bot(), "/audit/events?guildId=" + guild))).containsExactly(installed.toString());
        assertThat(ids(get(Tokens.bot(), "/audit/guilds/" + guild + "/timeline"))).containsExactly(installed.toString());
        get(Tokens.bot(), "/audit/events").statusCode(403).contentType("application/problem+json");
        get(Tokens.user(UUID.randomUUID().toString()), "/audit/events?guildId=" + guild).statusCode(403)
                .contentType("application/problem+json");
        given().get("/audit/events").then().statusCode(401).contentType("application/problem+json");
    }

    @Test
    void badParametersAreRefusedWithAProblem() {
        String admin = Tokens.admin();
        for (String query : List.of("guildId=abc", "from=yesterday", "from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z", "limit=0",
                "limit=501", "limit=many", "order=sideways", "cursor=not-a-cursor", "aggregateId=x", "eventType=drop%20table",
                "knownAt=2026-13-01", "from=-1000000000-01-01T00:00:00Z", "to=%2B1000000000-12-31T23:59:59Z",
                "knownAt=-0001-01-01T00:00:00Z",
                // a cursor of this service's shape whose instants no database could hold
                "cursor=" + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(("DESC|2026-01-01T00:00:00Z|"
                        + "-1000000000-01-01T00:00:00Z|" + UUID.randomUUID()).getBytes(java.nio.charset.StandardCharsets.UTF_8)))) {
            get(admin, "/audit/events?" + query).statusCode(400).contentType("application/problem+json")
                    .body("status", equalTo(400));
        }
        get(admin, "/audit/guilds/abc/timeline").statusCode(400).contentType("application/problem+json");
    }

    @Test
    void knownAtAnswersWithWhatHadBeenRecordedByThen() {
        String guild = Snowflakes.random();
        UUID license = UUID.randomUUID();
        UUID granted = UUID.randomUUID();
        UUID extended = UUID.randomUUID();
        Instant grantRecorded = Instant.now().minus(2, ChronoUnit.HOURS).truncatedTo(ChronoUnit.MILLIS);
        // the extension happened before the grant was recorded, but became known an hour later
        KafkaProbe.produceAll(List.of(
                recordedAt(record(new LicenseGranted(license, guild, "PRO"), granted, grantRecorded.minusSeconds(60)), grantRecorded),
                recordedAt(record(new LicenseExtended(license, BASE), extended, grantRecorded.minusSeconds(30)),
                        grantRecorded.plus(1, ChronoUnit.HOURS))));
        awaitAttributed(List.of(granted, extended), guild);

        String admin = Tokens.admin();
        String path = "/audit/guilds/" + guild + "/timeline";
        assertThat(ids(get(admin, path))).containsExactly(granted.toString(), extended.toString());
        assertThat(ids(get(admin, path + "?knownAt=" + grantRecorded.plus(30, ChronoUnit.MINUTES)))).containsExactly(granted.toString());
        assertThat(ids(get(admin, path + "?knownAt=" + grantRecorded.minusMillis(1)))).isEmpty();
        get(admin, path + "?knownAt=" + grantRecorded).statusCode(200).body("events[0].recordedAt", equalTo(grantRecorded.toString()));
    }

    @Test
    void anEventIsUnderItsGuildAtKnownAtOnlyOnceTheEventThatToldItsGuildHadBeenRecorded() {
        String guild = Snowflakes.random();
        UUID license = UUID.randomUUID();
        UUID extended = UUID.randomUUID();
        UUID granted = UUID.randomUUID();
        Instant extensionRecorded = Instant.now().minus(3, ChronoUnit.HOURS).truncatedTo(ChronoUnit.MILLIS);
        Instant grantRecorded = extensionRecorded.plus(1, ChronoUnit.HOURS);
        // the extension was recorded first: whose it was became known only with the grant, an hour later
        KafkaProbe.produceAll(List.of(
                recordedAt(record(new LicenseExtended(license, BASE), extended, extensionRecorded.minusSeconds(30)), extensionRecorded),
                recordedAt(record(new LicenseGranted(license, guild, "PRO"), granted, extensionRecorded.minusSeconds(60)), grantRecorded)));
        awaitAttributed(List.of(granted, extended), guild);

        String admin = Tokens.admin();
        String timeline = "/audit/guilds/" + guild + "/timeline";
        String between = "?knownAt=" + extensionRecorded.plus(30, ChronoUnit.MINUTES);
        assertThat(ids(get(admin, timeline + between))).isEmpty();
        get(admin, "/audit/events" + between + "&aggregateType=license&aggregateId=" + license).statusCode(200)
                .body("events.eventId", contains(extended.toString())).body("events[0].guildId", nullValue());
        assertThat(ids(get(admin, timeline + "?knownAt=" + grantRecorded))).containsExactly(granted.toString(), extended.toString());
    }

    @Test
    void pagesHoldStillWhileEventsArriveBetweenThem() {
        String guild = Snowflakes.random();
        Instant start = BASE.plus(1, ChronoUnit.DAYS);
        List<UUID> first = new ArrayList<>();
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            UUID id = UUID.randomUUID();
            first.add(id);
            records.add(record(new SnapshotCreated(UUID.randomUUID(), guild, "scheduled"), id, start.plusSeconds(10L * i)));
        }
        KafkaProbe.produceAll(records);
        awaitAttributed(first, guild);

        String admin = Tokens.admin();
        ValidatableResponse page = get(admin, "/audit/events?guildId=" + guild + "&limit=7");
        List<String> seen = new ArrayList<>(ids(page));
        String next = page.extract().path("next");

        // events of the same guild arrive between the pages: newer, older, and in between what the pages hold
        List<UUID> later = new ArrayList<>();
        List<ProducerRecord<String, byte[]>> arriving = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            UUID id = UUID.randomUUID();
            later.add(id);
            arriving.add(record(new SnapshotCreated(UUID.randomUUID(), guild, "scheduled"), id, start.plusSeconds(15L * i - 5)));
        }
        KafkaProbe.produceAll(arriving);
        awaitAttributed(later, guild);

        while (next != null) {
            page = get(admin, "/audit/events?guildId=" + guild + "&limit=7&cursor=" + next);
            seen.addAll(ids(page));
            next = page.extract().path("next");
        }
        List<String> expected = new ArrayList<>(first.stream().map(UUID::toString).toList());
        Collections.reverse(expected);
        assertThat(seen).containsExactlyElementsOf(expected);
        // a new listing sees everything
        assertThat(ids(get(admin, "/audit/events?guildId=" + guild + "&limit=500"))).hasSize(50);
        assertThat(later).allSatisfy(id -> assertThat(stored(db, id)).isEqualTo(1));
    }
}
