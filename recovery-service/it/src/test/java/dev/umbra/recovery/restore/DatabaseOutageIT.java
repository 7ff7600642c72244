package dev.umbra.recovery.restore;

import static dev.umbra.recovery.RecoveryFixtures.WAIT;
import static dev.umbra.recovery.RecoveryFixtures.body;
import static dev.umbra.recovery.RecoveryFixtures.discordShape;
import static dev.umbra.recovery.RecoveryFixtures.postSnapshot;
import static dev.umbra.recovery.RecoveryFixtures.structure;
import static dev.umbra.recovery.RecoveryFixtures.takeSnapshot;
import static dev.umbra.recovery.restore.RestoreFixtures.awaitFinished;
import static dev.umbra.recovery.restore.RestoreFixtures.nuked;
import static dev.umbra.recovery.restore.RestoreFixtures.restore;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.umbra.devstack.DiscordSandbox;
import dev.umbra.events.licensing.LicenseGranted;
import dev.umbra.recovery.snapshot.GuildStructure;
import dev.umbra.testing.Database;
import dev.umbra.testing.DevstackResource;
import dev.umbra.testing.InjectDevstack;
import dev.umbra.testing.ExpectedLog;
import dev.umbra.testing.OutboxRecords;
import dev.umbra.testing.Snowflakes;
import dev.umbra.testing.TcpProxy;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Postgres goes away in the middle of a restore and while licensing's events arrive: once it is back, everything finishes once. */
@QuarkusTest
@ExpectedLog(category = "dev.umbra.platform.workqueue.WorkQueues", message = "round failed")
@ExpectedLog(category = "dev.umbra.platform.inbox.Inbox", message = "waits at")
@ExpectedLog(category = "dev.umbra.platform.web.ProblemMappers", message = "database unavailable")
@WithTestResource(value = DevstackResource.class, initArgs = {@ResourceArg(name = "database", value = "recovery"), @ResourceArg(name = "outbox", value = "recovery")})
class DatabaseOutageIT {

    @InjectDevstack
    Database db;

    @InjectDevstack
    TcpProxy link;

    @InjectDevstack
    DiscordSandbox discord;

    @AfterEach
    void restoreTheLink() {
        link.restore();
    }

    @Test
    void aRestoreCutOffFromItsDatabaseResumesOnceItIsBackWithoutCreatingAnythingTwice() {
        discord.recover();
        String guild = Snowflakes.random();
        GuildStructure small = structure(guild);
        List<GuildStructure.Member> members = new ArrayList<>(small.members());
        for (int i = 0; i < 30; i++) {
            members.add(new GuildStructure.Member(Snowflakes.random(), List.of(small.roles().get(2).id())));
        }
        GuildStructure saved = new GuildStructure(small.roles(), small.channels(), members);
        UUID snapshot = takeSnapshot(guild, saved);
        discord.guilds().put(guild, discordShape(nuked(guild, saved)));

        UUID job = restore(guild, snapshot);
        await().atMost(WAIT).until(() -> db.count("select done_steps from restore_job where id = ?", job) >= 8);
        link.cut();
        UUID license = UUID.randomUUID();
        OutboxRecords.publish(new LicenseGranted(license, guild, "PRO"), Instant.now());
        // the service finds the database away (its guard's retries and connect timeouts take longer than a step of the restore)
        postSnapshot(guild, body("MANUAL", saved)).then().statusCode(503).contentType("application/problem+json");

        link.restore();
        assertThat(awaitFinished(guild, job).getString("status")).isEqualTo("COMPLETED");
        int total = (int) db.count("select total_steps from restore_job where id = ?", job);
        assertThat(db.count("select done_steps from restore_job where id = ?", job)).isEqualTo(total);
        List<String> changes = discord.guilds().changes(guild);
        assertThat(changes.stream().filter(change -> change.startsWith("POST"))).as("each create sent once").hasSize(6);
        // a step Discord confirmed while its record could not be written is sent once more: only idempotent ones can be
        assertThat(changes).hasSizeBetween(total, total + 1);
        await().atMost(WAIT).until(() -> db.count("select count(*) from license_plan where license_id = ?", license) == 1);
    }
}
