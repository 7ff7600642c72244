package dev.umbra.recovery.snapshot;

import static dev.umbra.recovery.RecoveryFixtures.WAIT;
import static dev.umbra.recovery.RecoveryFixtures.body;
import static dev.umbra.recovery.RecoveryFixtures.events;
import static dev.umbra.recovery.RecoveryFixtures.grant;
import static dev.umbra.recovery.RecoveryFixtures.postSnapshot;
import static dev.umbra.recovery.RecoveryFixtures.snapshotsOf;
import static dev.umbra.recovery.RecoveryFixtures.structure;
import static dev.umbra.recovery.RecoveryFixtures.takeSnapshot;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;

import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.events.guild.GuildDeleted;
import dev.umbra.events.licensing.LicenseDowngraded;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.events.licensing.LicenseSuspended;
import dev.umbra.testing.Concurrently;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.Tokens;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** Snapshots through the API, with retention from the plan licensing's events set, against devstack. */
@QuarkusTest
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "recovery"), @ResourceArg(name = "outbox", value = "recovery")})
class SnapshotsIT {

    @InjectDevstack
    Database db;

    @Inject
    SnapshotService service;

    @Test
    void aSnapshotIsStoredWithItsChecksumAndReadBackListedAndDiffed() {
        String guild = Snowflakes.random();
        grant(db, guild, "PRO");
        GuildStructure first = structure(guild);
        UUID before = takeSnapshot(guild, first);
        GuildStructure second = new GuildStructure(first.roles().subList(0, 3), first.channels(), first.members().subList(1, 2));
        UUID after = takeSnapshot(guild, second);

        given().auth().oauth2(Tokens.bot()).when().get("/guilds/{g}/snapshots/{id}", guild, before).then().statusCode(200)
                .body("trigger", equalTo("MANUAL"))
                .body("checksum", equalTo(SnapshotCodec.encode(first).checksum()))
                .body("structure.roles", hasSize(4))
                .body("structure.channels[2].permissionOverwrites", hasSize(2));
        given().auth().oauth2(Tokens.admin()).when().get("/guilds/{g}/snapshots", guild).then().statusCode(200)
                .body("id", equalTo(List.of(after.toString(), before.toString())));
        given().auth().oauth2(Tokens.bot()).queryParam("to", after).when().get("/guilds/{g}/snapshots/{id}/diff", guild, before).then()
                .statusCode(200)
                .body("roles.removed", equalTo(List.of(first.roles().get(3).id())))
                .body("members.id", equalTo(List.of(first.members().get(0).id())));
    }

    @Test
    void retentionFollowsThePlanAndADowngradeShrinksItAtTheNextSnapshot() {
        String guild = Snowflakes.random();
        UUID license = grant(db, guild, "PRO");
        List<UUID> taken = new ArrayList<>();
        try (KafkaProbe snapshots = KafkaProbe.read(Topics.of(Aggregates.SNAPSHOT))) {
            for (int i = 0; i < 9; i++) {
                taken.add(takeSnapshot(guild, structure(guild)));
            }
            assertThat(snapshotsOf(db, guild)).isEqualTo(7);
            assertThat(db.count("select count(*) from snapshot where id in (?, ?)", taken.get(0), taken.get(1))).isZero();
            await().atMost(WAIT).until(() -> events(snapshots, "SnapshotDeleted", guild).size() == 2);
            assertThat(events(snapshots, "SnapshotDeleted", guild)).extracting(record -> UUID.fromString(record.key()))
                    .containsExactlyInAnyOrder(taken.get(0), taken.get(1));

            OutboxRecords.publish(new LicenseDowngraded(license, "PRO", "FREE"), Instant.now());
            await().atMost(WAIT).until(() -> db.count("select count(*) from license_plan where license_id = ? and plan = 'FREE'", license) == 1);
            assertThat(snapshotsOf(db, guild)).as("a plan change alone deletes nothing").isEqualTo(7);

            UUID last = takeSnapshot(guild, structure(guild));
            assertThat(snapshotsOf(db, guild)).isOne();
            assertThat(db.count("select count(*) from snapshot where id = ?", last)).isOne();
            await().atMost(WAIT).until(() -> events(snapshots, "SnapshotDeleted", guild).size() == 9);
            assertThat(events(snapshots, "SnapshotCreated", guild)).hasSize(10);
        }
    }

    @Test
    void snapshotsOfIncidentsAndBeforeRestoresNeverPushOutTheRegularOnesAUserRestoresFrom() throws Throwable {
        String guild = Snowflakes.random();
        grant(db, guild, "PRO");
        List<UUID> regular = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            regular.add(takeSnapshot(guild, structure(guild)));
        }
        // nine incidents and two restores later, each with a snapshot of the damaged guild recovery took itself
        List<UUID> incidents = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            incidents.add(store(guild, SnapshotTrigger.ANTI_NUKE));
        }
        store(guild, SnapshotTrigger.PRE_RESTORE);
        store(guild, SnapshotTrigger.PRE_RESTORE);

        assertThat(db.count("select count(*) from snapshot where id = any(string_to_array(?, ',')::uuid[])", ids(regular))).isEqualTo(7);
        assertThat(db.count("select count(*) from snapshot where guild_id = ? and trigger = 'ANTI_NUKE'", guild)).isEqualTo(7);
        assertThat(db.count("select count(*) from snapshot where id = any(string_to_array(?, ',')::uuid[])", ids(incidents.subList(0, 2))))
                .as("the oldest incidents' snapshots made room for newer ones").isZero();
        assertThat(db.count("select count(*) from snapshot where guild_id = ? and trigger = 'PRE_RESTORE'", guild)).isEqualTo(2);

        UUID scheduled = take(guild, "SCHEDULED");
        assertThat(db.count("select count(*) from snapshot where id = ?", regular.get(0))).as("a regular snapshot pushes out the oldest regular one")
                .isZero();
        assertThat(db.count("select count(*) from snapshot where id = ?", scheduled)).isOne();
        assertThat(snapshotsOf(db, guild)).isEqualTo(7 + 7 + 2);
    }

    private static UUID take(String guild, String trigger) {
        return UUID.fromString(postSnapshot(guild, body(trigger, structure(guild))).then().statusCode(201).extract().path("id"));
    }

    /** A snapshot as recovery stores its own, in a restore or an anti-nuke response: the API takes only the bot's triggers. */
    private UUID store(String guild, SnapshotTrigger trigger) throws Throwable {
        return VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(
                () -> service.store(guild, trigger, SnapshotCodec.encode(structure(guild))))).id;
    }

    @Test
    void theBotCannotStoreTheSnapshotsRecoveryTakesItself() {
        String guild = Snowflakes.random();
        grant(db, guild, "PRO");
        for (String trigger : List.of("PRE_RESTORE", "ANTI_NUKE")) {
            postSnapshot(guild, body(trigger, structure(guild))).then().statusCode(400).contentType("application/problem+json");
        }
        assertThat(snapshotsOf(db, guild)).isZero();
    }

    private static String ids(List<UUID> ids) {
        return String.join(",", ids.stream().map(UUID::toString).toList());
    }

    @Test
    void licenseEventsInAnyOrderConvergeAndASuspendedLicenseGatesLikeFree() {
        String guild = Snowflakes.random();
        UUID license = UUID.randomUUID();
        Instant granted = Instant.now().minusSeconds(60);
        // the downgrade (later) is applied before the grant (earlier): the grant must not bring PREMIUM back
        OutboxRecords.publish(new LicenseDowngraded(license, "PREMIUM", "PRO"), granted.plusSeconds(30));
        OutboxRecords.publish(new LicenseGranted(license, guild, "PREMIUM"), granted);
        await().atMost(WAIT).until(() -> db.count("select count(*) from license_plan where license_id = ? and guild_id = ?", license, guild) == 1);
        assertThat(db.text("select plan from license_plan where license_id = ?", license)).isEqualTo("PRO");

        for (int i = 0; i < 8; i++) {
            takeSnapshot(guild, structure(guild));
        }
        assertThat(snapshotsOf(db, guild)).isEqualTo(7);

        OutboxRecords.publish(new LicenseSuspended(license, "payment failed"), Instant.now());
        await().atMost(WAIT).until(() -> "SUSPENDED".equals(db.text("select status from license_plan where license_id = ?", license)));
        takeSnapshot(guild, structure(guild));
        assertThat(snapshotsOf(db, guild)).isOne();
    }

    @Test
    void concurrentSnapshotsOfAGuildKeepExactlyWhatThePlanAllows() throws Exception {
        String guild = Snowflakes.random();
        grant(db, guild, "PRO");
        int writers = 16;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try (KafkaProbe snapshots = KafkaProbe.read(Topics.of(Aggregates.SNAPSHOT))) {
            List<CompletableFuture<Integer>> answers = new ArrayList<>();
            for (int i = 0; i < writers; i++) {
                answers.add(CompletableFuture.supplyAsync(() -> postSnapshot(guild, body("SCHEDULED", structure(guild))).statusCode(), pool));
            }
            assertThat(answers).allSatisfy(answer -> assertThat(answer.join()).isEqualTo(201));
            assertThat(snapshotsOf(db, guild)).isEqualTo(7);
            await().atMost(WAIT).until(() -> events(snapshots, "SnapshotDeleted", guild).size() >= 9);
            assertThat(events(snapshots, "SnapshotDeleted", guild)).as("each deleted once").extracting(record -> record.key())
                    .doesNotHaveDuplicates().hasSize(9);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void badInputIsRefusedWithAProblemAndStoresNothing() {
        String guild = Snowflakes.random();
        GuildStructure good = structure(guild);

        postSnapshot(guild, "{\"trigger\": \"MANUAL\", \"structure\": {\"roles\": [").then().statusCode(400)
                .contentType("application/problem+json");
        postSnapshot(guild, body("MANUAL", new GuildStructure(good.roles(), good.channels(), null))).then().statusCode(400)
                .contentType("application/problem+json");
        postSnapshot(guild, body("WHENEVER", good)).then().statusCode(400).contentType("application/problem+json");
        GuildStructure.Member stranger = new GuildStructure.Member(Snowflakes.random(), List.of(Snowflakes.random()));
        postSnapshot(guild, body("MANUAL", new GuildStructure(good.roles(), good.channels(), List.of(stranger)))).then().statusCode(422)
                .contentType("application/problem+json").body("violations.field", hasItem("members[0].roles[0]"));
        List<GuildStructure.Member> crowd = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            crowd.add(new GuildStructure.Member(Snowflakes.random(), List.of(good.roles().get(1).id())));
        }
        postSnapshot(guild, body("MANUAL", new GuildStructure(good.roles(), good.channels(), crowd))).then().statusCode(413)
                .contentType("application/problem+json");
        assertThat(snapshotsOf(db, guild)).isZero();

        given().auth().oauth2(Tokens.bot()).when().get("/guilds/{g}/snapshots/{id}", guild, UUID.randomUUID()).then().statusCode(404)
                .contentType("application/problem+json");
        given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"snapshotId\": \"" + UUID.randomUUID() + "\"}")
                .when().post("/guilds/{g}/restores", guild).then().statusCode(404).contentType("application/problem+json");
        given().auth().oauth2(Tokens.user(Snowflakes.random())).contentType(ContentType.JSON).body(body("MANUAL", good))
                .when().post("/guilds/{g}/snapshots", guild).then().statusCode(403).contentType("application/problem+json");
    }

    @Test
    void aDeletedGuildsSnapshotsAreKeptForThePeriodThenPurgedEachWithAnEvent() {
        String guild = Snowflakes.random();
        grant(db, guild, "PRO");
        List<UUID> taken = List.of(takeSnapshot(guild, structure(guild)), takeSnapshot(guild, structure(guild)));
        try (KafkaProbe snapshots = KafkaProbe.read(Topics.of(Aggregates.SNAPSHOT))) {
            UUID deleted = UUID.randomUUID();
            Instant deletedAt = Instant.now().truncatedTo(ChronoUnit.MILLIS);
            OutboxRecords.publish(new GuildDeleted(guild), deleted, deletedAt);
            OutboxRecords.publish(new GuildDeleted(guild), deleted, deletedAt);
            await().atMost(WAIT).until(() -> db.count("select count(*) from deleted_guild where guild_id = ?", guild) == 1);
            // kept for the period (2 s in tests) from the deletion, not purged at once
            assertThat(Instant.parse(db.text("select to_char(due_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') from work_item "
                    + "where queue = 'snapshot-purge' and item_key = ?", guild))).isAfterOrEqualTo(deletedAt.plusSeconds(2));
            // and nothing new is done for the guild: no snapshot, no restore, no member restore
            postSnapshot(guild, body("MANUAL", structure(guild))).then().statusCode(409).contentType("application/problem+json");
            given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"snapshotId\": \"" + taken.get(1) + "\"}")
                    .when().post("/guilds/{g}/restores", guild).then().statusCode(409).contentType("application/problem+json");
            given().auth().oauth2(Tokens.bot()).contentType(ContentType.JSON).body("{\"snapshotId\": \"" + taken.get(1) + "\"}")
                    .when().post("/guilds/{g}/members/{m}/restore", guild, Snowflakes.random()).then().statusCode(409)
                    .contentType("application/problem+json");
            assertThat(db.count("select count(*) from restore_job where guild_id = ?", guild)).isZero();

            await().atMost(WAIT).until(() -> snapshotsOf(db, guild) == 0);
            await().atMost(WAIT).until(() -> events(snapshots, "SnapshotDeleted", guild).size() == 2);
            assertThat(events(snapshots, "SnapshotDeleted", guild)).extracting(record -> UUID.fromString(record.key()))
                    .containsExactlyInAnyOrderElementsOf(taken);
            assertThat(db.count("select count(*) from work_item where queue = 'snapshot-purge' and item_key = ?", guild)).isOne();
        }
    }

    @Test
    void purgesOfOneGuildAtOnceDeleteEachSnapshotOnceWithOneEventEach() throws Exception {
        String guild = Snowflakes.random();
        grant(db, guild, "PRO");
        List<UUID> taken = List.of(takeSnapshot(guild, structure(guild)), takeSnapshot(guild, structure(guild)),
                takeSnapshot(guild, structure(guild)));
        try (KafkaProbe snapshots = KafkaProbe.read(Topics.of(Aggregates.SNAPSHOT))) {
            // two replicas purging at once (a lease taken over while the first was still at it): the guild's lock orders them
            List<Integer> kept = Concurrently.run(2, caller -> {
                try {
                    return VertxContextSupport.subscribeAndAwait(() -> Panache.withTransaction(() -> service.purge(guild)));
                } catch (Throwable e) {
                    throw new IllegalStateException(e);
                }
            });

            assertThat(kept).containsExactly(0, 0);
            assertThat(snapshotsOf(db, guild)).isZero();
            await().atMost(WAIT).until(() -> events(snapshots, "SnapshotDeleted", guild).size() >= taken.size());
            // give a second copy of any of them the time the first ones took
            await().pollDelay(Duration.ofSeconds(2)).atMost(WAIT).until(() -> true);
            assertThat(events(snapshots, "SnapshotDeleted", guild)).extracting(record -> UUID.fromString(record.key()))
                    .containsExactlyInAnyOrderElementsOf(taken);
        }
    }

    @Test
    void aDeletedGuildsSnapshotARestoreUnderWayReadsIsPurgedOnceTheRestoreHasEnded() {
        String guild = Snowflakes.random();
        grant(db, guild, "PRO");
        UUID restored = takeSnapshot(guild, structure(guild));
        UUID other = takeSnapshot(guild, structure(guild));
        // a restore accepted before the guild was deleted, not yet ended
        UUID job = UUID.randomUUID();
        db.execute("insert into restore_job (id, guild_id, snapshot_id, status, requested_at) values (?, ?, ?, 'QUEUED', now())", job, guild,
                restored);
        try (KafkaProbe snapshots = KafkaProbe.read(Topics.of(Aggregates.SNAPSHOT))) {
            OutboxRecords.publish(new GuildDeleted(guild), UUID.randomUUID(), Instant.now());

            await().atMost(WAIT).until(() -> db.count("select count(*) from snapshot where id = ?", other) == 0);
            assertThat(db.count("select count(*) from snapshot where id = ?", restored)).isOne();

            db.execute("update restore_job set status = 'FAILED', finished_at = now() where id = ?", job);
            await().atMost(WAIT).until(() -> snapshotsOf(db, guild) == 0);
            await().atMost(WAIT).until(() -> events(snapshots, "SnapshotDeleted", guild).size() == 2);
            assertThat(events(snapshots, "SnapshotDeleted", guild)).extracting(record -> UUID.fromString(record.key()))
                    .containsExactlyInAnyOrder(restored, other);
        }
    }
}
