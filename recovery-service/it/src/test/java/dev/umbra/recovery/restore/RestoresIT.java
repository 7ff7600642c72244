package dev.umbra.recovery.restore;

import static dev.umbra.recovery.RecoveryFixtures.body;
import static dev.umbra.recovery.RecoveryFixtures.discordShape;
import static dev.umbra.recovery.RecoveryFixtures.events;
import static dev.umbra.recovery.RecoveryFixtures.grant;
import static dev.umbra.recovery.RecoveryFixtures.onDiscord;
import static dev.umbra.recovery.RecoveryFixtures.postSnapshot;
import static dev.umbra.recovery.RecoveryFixtures.structure;
import static dev.umbra.recovery.RecoveryFixtures.takeSnapshot;
import static dev.umbra.recovery.RecoveryFixtures.WAIT;
import static dev.umbra.recovery.restore.RestoreFixtures.awaitFinished;
import static dev.umbra.recovery.restore.RestoreFixtures.nuked;
import static dev.umbra.recovery.restore.RestoreFixtures.requestRestore;
import static dev.umbra.recovery.restore.RestoreFixtures.restore;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.umbra.devstack.DiscordSandbox;
import dev.umbra.events.Aggregates;
import dev.umbra.events.Topics;
import dev.umbra.platform.workqueue.WorkItem;
import dev.umbra.platform.workqueue.WorkQueues;
import dev.umbra.recovery.snapshot.GuildStructure;
import dev.umbra.testing.Concurrently;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.KafkaProbe;
import dev.umbra.testing.Snowflakes;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Restores against devstack's Discord sandbox: the guild's structure comes back, each change made once, outages waited out or given up. */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.platform.workqueue.WorkQueue", message = "its lease ran out")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "recovery"), @ResourceArg(name = "outbox", value = "recovery")})
class RestoresIT {

    @InjectDevstack
    Database db;

    @InjectDevstack
    DiscordSandbox discord;

    @Inject
    WorkQueues queues;

    private static final ObjectMapper JSON = new ObjectMapper();

    private String guild;
    private GuildStructure saved;
    private UUID snapshot;

    @BeforeEach
    void aNukedGuildWithASnapshotFromBefore() {
        discord.recover();
        guild = Snowflakes.random();
        saved = structure(guild);
        snapshot = takeSnapshot(guild, saved);
        discord.guilds().put(guild, discordShape(nuked(guild, saved)));
    }

    @Test
    void aRestoreBringsTheSnapshotBackMakingEachChangeOnceAfterAPreRestoreSnapshot() {
        try (KafkaProbe restores = KafkaProbe.read(Topics.of(Aggregates.RESTORE_JOB))) {
            UUID job = restore(guild, snapshot);

            // 3 roles and 3 channels created, the roles put in order, the 2 members' roles set, the nuker's channel and role deleted
            JsonPath finished = completed(job, 11);
            assertThat(List.of(finished.getInt("created"), finished.getInt("updated"), finished.getInt("deleted"))).containsExactly(6, 3, 2);
            assertRestored();
            assertThat(discord.guilds().changes(guild)).hasSize(11);
            UUID pre = UUID.fromString(finished.getString("preRestoreSnapshotId"));
            assertThat(db.text("select trigger from snapshot where id = ?", pre)).isEqualTo("PRE_RESTORE");
            assertThat(db.text("select structure from snapshot where id = ?", pre)).contains("\"nuker\"");

            await().atMost(WAIT).until(() -> events(restores, "RestoreCompleted", job.toString()).size() == 1);
            assertThat(events(restores, "RestoreStarted", guild)).singleElement()
                    .satisfies(record -> assertThat(record.key()).isEqualTo(job.toString()));
            assertThat(KafkaProbe.value(events(restores, "RestoreCompleted", job.toString()).get(0)))
                    .contains("created 6, updated 3, deleted 2");
        }
    }

    @Test
    void aMemberCaughtInAnAntiNukeBurstSinceTheSnapshotDoesNotGetTheirRolesBack() {
        String nuker = saved.members().get(0).id();
        db.execute("""
                insert into anti_nuke_incident (id, guild_id, actor_id, pattern, first_at, last_at, triggered_at, acted)
                values (?, ?, ?, 'CHANNEL_DELETE', now() - interval '5 seconds', now(), now(), true)""", UUID.randomUUID(), guild, nuker);

        // every other step, the other member's roles included
        completed(restore(guild, snapshot), 10);

        Map<String, Integer> rolesOf = new HashMap<>();
        onDiscord(discord, guild).path("members").forEach(member -> rolesOf.put(member.path("user").path("id").asText(), member.path("roles").size()));
        assertThat(rolesOf).containsEntry(nuker, 0).containsEntry(saved.members().get(1).id(), 1);
    }

    @Test
    void aStepDiscordRefusesIsSkippedAndTheRestOfTheGuildIsRestored() throws Exception {
        // a role an integration added after the snapshot: Discord lets no bot delete it
        ObjectNode now = (ObjectNode) JSON.readTree(discord.guilds().get(guild));
        String integration = Snowflakes.random();
        now.withArray("roles").addObject().put("id", integration).put("name", "some-integration").put("color", 0).put("permissions", "0")
                .put("position", 1).put("hoist", false).put("mentionable", false).put("managed", true);
        discord.guilds().put(guild, now.toString());

        try (KafkaProbe restores = KafkaProbe.read(Topics.of(Aggregates.RESTORE_JOB))) {
            UUID job = restore(guild, snapshot);

            JsonPath finished = completed(job, 12);
            assertThat(List.of(finished.getInt("created"), finished.getInt("updated"), finished.getInt("deleted"), finished.getInt("skipped")))
                    .containsExactly(6, 3, 2, 1);
            assertThat(db.text("select status || ':' || note from restore_step where job_id = ? and target_id = ?", job, integration))
                    .isEqualTo("SKIPPED:Discord refused it (403)");
            assertThat(onDiscord(discord, guild).path("roles").toString()).contains("some-integration");
            await().atMost(WAIT).until(() -> events(restores, "RestoreCompleted", job.toString()).size() == 1);
            assertThat(KafkaProbe.value(events(restores, "RestoreCompleted", job.toString()).get(0))).contains("skipped 1");
        }
    }

    @Test
    void aRoleDiscordRefusesToMakeIsLeftOutOfTheOrderTheMembersAndTheOverwritesThatNamedIt() {
        // "mod" is above the bot's own role now: Discord refuses to make it
        discord.guilds().refuseToCreate(guild, "mod");

        JsonPath finished = completed(restore(guild, snapshot), 11);
        assertThat(finished.getInt("skipped")).isEqualTo(1);

        JsonNode now = onDiscord(discord, guild);
        Map<String, String> roleIds = new HashMap<>();
        Map<String, Integer> positions = new HashMap<>();
        now.path("roles").forEach(role -> {
            roleIds.put(role.path("name").asText(), role.path("id").asText());
            positions.put(role.path("name").asText(), role.path("position").asInt());
        });
        assertThat(roleIds).doesNotContainKey("mod");
        // the roles made are put in their order, which a dead id in the list would have had Discord refuse whole
        assertThat(positions).containsEntry("helper", 2).containsEntry("vip", 1);
        now.path("members").forEach(member -> member.path("roles")
                .forEach(role -> assertThat(roleIds).as("a role the member was given").containsValue(role.asText())));
        now.path("channels").forEach(channel -> channel.path("permission_overwrites")
                .forEach(overwrite -> assertThat(roleIds).as("a role %s's overwrite names", channel.path("name").asText())
                        .containsValue(overwrite.path("id").asText())));
        assertThat(now.path("channels").toString()).contains("\"staff\"");
    }

    @Test
    void twoRestoresAskedAtOnceStartOneAndRefuseTheOther() throws Exception {
        grant(db, guild, "PRO");
        CyclicBarrier together = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<CompletableFuture<Integer>> answers = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                answers.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        together.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    return requestRestore(guild, snapshot).then().contentType(org.hamcrest.Matchers.matchesPattern(answerType())).extract().statusCode();
                }, pool));
            }
            assertThat(answers.stream().map(CompletableFuture::join).toList()).containsExactlyInAnyOrder(202, 409);
        } finally {
            pool.shutdownNow();
        }
        assertThat(db.count("select count(*) from restore_job where guild_id = ?", guild)).isOne();
        UUID job = UUID.fromString(db.text("select id from restore_job where guild_id = ?", guild));
        assertThat(awaitFinished(guild, job).getString("status")).isEqualTo("COMPLETED");
        // once it is over, the guild may restore again (PRO allows 5 a day)
        assertThat(awaitFinished(guild, restore(guild, snapshot)).getString("status")).isEqualTo("COMPLETED");
    }

    @Test
    void aDiscordOutageMidRestoreIsWaitedOutAndTheRestoreResumesWithoutRepeatingAStep() {
        // the 3 reads of the plan and 2 creates pass, then 2 calls fail: the third create, then the read that looks for it
        discord.failAfter(5, 2);
        UUID job = restore(guild, snapshot);

        JsonPath finished = awaitFinished(guild, job);
        assertThat(finished.getString("status")).isEqualTo("COMPLETED");
        // a try that finished counts one: the fault made at least one more
        assertThat(db.count("select attempts from work_item where queue = 'restore-job' and item_key = ?", job.toString())).isGreaterThanOrEqualTo(2);
        assertRestored();
        assertThat(discord.guilds().changes(guild)).as("every step applied once").hasSize(11);
    }

    @Test
    void aCreateWhoseAnswerWasLostIsFoundByItsNameAndNeverMadeTwice() {
        // the first create is made but its answer never comes: that try fails, the next looks for the object before sending again
        discord.loseCreateAnswers(1);
        UUID job = restore(guild, snapshot);

        JsonPath finished = awaitFinished(guild, job);
        assertThat(finished.getString("status")).isEqualTo("COMPLETED");
        // a try that finished counts one: the fault made at least one more
        assertThat(db.count("select attempts from work_item where queue = 'restore-job' and item_key = ?", job.toString())).isGreaterThanOrEqualTo(2);
        assertRestored();
        assertThat(discord.guilds().changes(guild)).as("every step applied once, the create whose answer was lost too").hasSize(11);
        assertThat(List.of(finished.getInt("created"), finished.getInt("updated"), finished.getInt("deleted"))).containsExactly(6, 3, 2);
    }

    @Test
    void aDiscordOutageLongerThanTheRetriesFailsTheRestoreAndTheGuildMayTryAgainLater() {
        grant(db, guild, "PRO");
        try (KafkaProbe restores = KafkaProbe.read(Topics.of(Aggregates.RESTORE_JOB))) {
            discord.fail(-1);
            UUID job = restore(guild, snapshot);

            JsonPath failed = awaitFinished(guild, job);
            assertThat(failed.getString("status")).isEqualTo("FAILED");
            assertThat(failed.getString("error")).startsWith("gave up after 5 tries");
            assertThat(discord.guilds().changes(guild)).isEmpty();
            await().atMost(WAIT).until(() -> events(restores, "RestoreFailed", job.toString()).size() == 1);

            discord.recover();
            assertThat(awaitFinished(guild, restore(guild, snapshot)).getString("status")).isEqualTo("COMPLETED");
            assertRestored();
        }
    }

    @Test
    void aBotTokenDiscordRefusesForAWhileHoldsTheRestoreUpAndFailsNothing() {
        grant(db, guild, "PRO");
        // more refusals than the tries the test profile allows: each one is waited out as an outage, never counted as the restore's
        discord.refuseToken(8);
        JsonPath finished = awaitFinished(guild, restore(guild, snapshot));
        assertThat(finished.getString("status")).isEqualTo("COMPLETED");
        assertThat(finished.getString("error")).isNull();
        assertRestored();
    }

    @Test
    void aRestoreThatKeepsMakingProgressBetweenDiscordsFailuresIsFinishedNotGivenUp() {
        // twelve more channels: a restore of 23 steps, with every fifth call to Discord failing, fails far more tries in all than the
        // five the test profile allows in a row, never more than one in a row
        List<GuildStructure.Channel> channels = new ArrayList<>(saved.channels());
        for (int i = 0; i < 12; i++) {
            channels.add(new GuildStructure.Channel(Snowflakes.random(), "room-" + i, 0, 2 + i, saved.channels().get(0).id(), null, List.of()));
        }
        GuildStructure larger = new GuildStructure(saved.roles(), channels, saved.members());
        UUID largerSnapshot = takeSnapshot(guild, larger);
        discord.guilds().put(guild, discordShape(nuked(guild, larger)));
        discord.failEvery(5);

        UUID job = restore(guild, largerSnapshot);

        completed(job, 23);
        discord.recover();
        assertThat(db.count("select failed_tries from restore_job where id = ?", job)).isZero();
        assertThat(onDiscord(discord, guild).path("channels")).hasSize(15);
    }

    @Test
    void aSnapshotTakenWhileARestoreWaitsOutAnOutageLeavesTheRestoresOwnSnapshotsAlone() {
        // FREE keeps one snapshot; the restore reads its target and the PRE_RESTORE snapshot it took until it is over
        discord.failAfter(5, -1);
        UUID job = restore(guild, snapshot);
        await().atMost(WAIT).until(() -> db.count("select attempts from work_item where queue = 'restore-job' and item_key = ?",
                job.toString()) > 0);
        UUID pre = UUID.fromString(db.text("select pre_restore_snapshot_id from restore_job where id = ?", job));

        UUID newer = takeSnapshot(guild, nuked(guild, saved));
        assertThat(db.count("select count(*) from snapshot where id = any(string_to_array(?, ',')::uuid[])",
                String.join(",", snapshot.toString(), pre.toString(), newer.toString()))).isEqualTo(3);

        discord.recover();
        assertThat(awaitFinished(guild, job).getString("status")).isEqualTo("COMPLETED");
        assertRestored();
    }

    @Test
    void aRestoreAskedWhileANewerSnapshotsRetentionRunsEitherKeepsItsSnapshotOrIsRefused() throws Exception {
        // FREE keeps one snapshot: the newer one pushes out the one the restore asks for, unless a restore has it
        List<UUID> accepted = new ArrayList<>();
        Map<UUID, String> guildOf = new HashMap<>();
        for (int round = 0; round < 20; round++) {
            String raced = Snowflakes.random();
            GuildStructure before = structure(raced);
            UUID older = takeSnapshot(raced, before);
            discord.guilds().put(raced, discordShape(nuked(raced, before)));

            List<Response> answers = Concurrently.run(2, caller -> caller == 0 ? requestRestore(raced, older)
                    : postSnapshot(raced, body("SCHEDULED", structure(raced))));
            answers.get(1).then().statusCode(201);
            int restore = answers.get(0).statusCode();
            assertThat(restore).isIn(202, 404);
            long kept = db.count("select count(*) from snapshot where id = ?", older);
            if (restore == 202) {
                assertThat(kept).as("the snapshot of an accepted restore (round %d)", round).isOne();
                UUID job = UUID.fromString(answers.get(0).path("id"));
                accepted.add(job);
                guildOf.put(job, raced);
            } else {
                assertThat(kept).as("a restore refused because its snapshot was gone (round %d)", round).isZero();
            }
        }
        for (UUID job : accepted) {
            assertThat(awaitFinished(guildOf.get(job), job).getString("status")).isEqualTo("COMPLETED");
        }
    }

    @Test
    void aReadOfTheGuildLongerThanTheLeaseKeepsTheRestoreItsOwnAndAnotherReplicaCannotTakeItOver() throws Throwable {
        // the lease is 5 s in tests; the restore's first read of the guild (roles, channels, members) takes 3 × 2 s
        discord.answerAfter(Duration.ofSeconds(2));
        UUID job = restore(guild, snapshot);
        await().atMost(WAIT).until(() -> "leased".equals(db.text("select status from work_item where queue = 'restore-job' and item_key = ?",
                job.toString())));
        Instant readDone = Instant.now().plusSeconds(9);
        while (Instant.now().isBefore(readDone)) {
            List<WorkItem> claimed = VertxContextSupport.subscribeAndAwait(() -> queues.queue(RestoreWorker.QUEUE).claim());
            assertThat(claimed).as("what another replica claims").extracting(WorkItem::key).doesNotContain(job.toString());
            Thread.sleep(250);
        }
        assertThat(db.text("select status from restore_job where id = ?", job)).isEqualTo("RUNNING");

        discord.answerAfter(Duration.ZERO);
        assertThat(awaitFinished(guild, job).getString("status")).isEqualTo("COMPLETED");
        assertRestored();
        assertThat(discord.guilds().changes(guild)).as("every step applied once").hasSize(11);
    }

    @Test
    void aRestoreWhoseTriesKeepKillingTheirWorkerEndsFailedInsteadOfStayingQueuedForEver() {
        discord.answerAfter(Duration.ofSeconds(2));
        UUID job = restore(guild, snapshot);
        // as if four workers in a row had died while trying it: the next claim hands it to the worker as abandoned
        db.execute("update work_item set status = 'leased', lease_until = now() - interval '1 second', "
                + "lease_token = nextval('work_item_lease_token'), try_started = true, abandoned_claims = 4 "
                + "where queue = 'restore-job' and item_key = ?", job.toString());
        discord.answerAfter(Duration.ZERO);

        assertThat(awaitFinished(guild, job).getString("status")).isEqualTo("FAILED");
        assertThat(db.text("select error from restore_job where id = ?", job)).contains("kill or hang the worker");
        assertThat(db.text("select status from work_item where queue = 'restore-job' and item_key = ?", job.toString())).isEqualTo("dead");
    }

    @Test
    void theFreePlanAllowsOneRestoreADayAndOneThatFailedDoesNotCount() {
        discord.fail(-1);
        assertThat(awaitFinished(guild, restore(guild, snapshot)).getString("status")).isEqualTo("FAILED");
        discord.recover();

        assertThat(awaitFinished(guild, restore(guild, snapshot)).getString("status")).isEqualTo("COMPLETED");
        requestRestore(guild, snapshot).then().statusCode(429).contentType("application/problem+json");
    }

    /** The job, once finished: COMPLETED, every one of its {@code steps} steps done. */
    private JsonPath completed(UUID job, int steps) {
        JsonPath finished = awaitFinished(guild, job);
        assertThat(finished.getString("status")).isEqualTo("COMPLETED");
        assertThat(finished.getInt("totalSteps")).isEqualTo(steps);
        assertThat(finished.getInt("doneSteps")).isEqualTo(steps);
        return finished;
    }

    private static String answerType() {
        return "application/(problem\\+)?json.*";
    }

    /** The sandbox's guild has the snapshot's roles, channels (under the right category, with overwrites of the new roles) and members' roles, by name. */
    private void assertRestored() {
        JsonNode now = onDiscord(discord, guild);
        Map<String, String> roleNames = new HashMap<>();
        now.path("roles").forEach(role -> roleNames.put(role.path("id").asText(), role.path("name").asText()));
        assertThat(roleNames.values()).containsExactlyInAnyOrderElementsOf(saved.roles().stream().map(GuildStructure.Role::name).toList());
        // the hierarchy as the snapshot had it (who may manage whom)
        Map<String, Integer> positions = new HashMap<>();
        now.path("roles").forEach(role -> positions.put(role.path("name").asText(), role.path("position").asInt()));
        assertThat(positions).isEqualTo(saved.roles().stream().collect(java.util.stream.Collectors.toMap(GuildStructure.Role::name,
                GuildStructure.Role::position)));
        Map<String, String> channelNames = new HashMap<>();
        now.path("channels").forEach(channel -> channelNames.put(channel.path("id").asText(), channel.path("name").asText()));
        assertThat(channelNames.values()).containsExactlyInAnyOrder("text", "general", "staff");
        now.path("channels").forEach(channel -> {
            if (!"text".equals(channel.path("name").asText())) {
                assertThat(channelNames.get(channel.path("parent_id").asText())).isEqualTo("text");
            }
            if ("staff".equals(channel.path("name").asText())) {
                List<String> overwrites = new ArrayList<>();
                channel.path("permission_overwrites").forEach(o -> overwrites.add(roleNames.get(o.path("id").asText())));
                assertThat(overwrites).containsExactlyInAnyOrder("@everyone", "mod");
            }
        });
        Map<String, List<String>> memberRoles = new HashMap<>();
        now.path("members").forEach(member -> {
            List<String> names = new ArrayList<>();
            member.path("roles").forEach(role -> names.add(roleNames.get(role.asText())));
            memberRoles.put(member.path("user").path("id").asText(), names);
        });
        assertThat(memberRoles.get(saved.members().get(0).id())).containsExactlyInAnyOrder("mod", "vip");
        assertThat(memberRoles.get(saved.members().get(1).id())).containsExactlyInAnyOrder("helper");
    }
}
