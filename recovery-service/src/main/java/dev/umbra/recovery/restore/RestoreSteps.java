package dev.umbra.recovery.restore;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.umbra.platform.storage.NativeSelects;
import dev.umbra.recovery.snapshot.GuildStructure;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** The stored steps of a restore ({@code restore_step}), in the caller's session. */
final class RestoreSteps {

    /** A step as stored: {@code status} PENDING, ATTEMPTED, DONE or SKIPPED (Discord refused it); {@code discordId} the id a create got. */
    record Stored(int seq, StepKind kind, String targetId, String spec, String status, String discordId) {

        boolean done() {
            return "DONE".equals(status);
        }

        boolean finished() {
            return done() || "SKIPPED".equals(status);
        }

        boolean attempted() {
            return "ATTEMPTED".equals(status);
        }

        GuildStructure.Role role() {
            return read(spec, GuildStructure.Role.class);
        }

        GuildStructure.Channel channel() {
            return read(spec, GuildStructure.Channel.class);
        }

        GuildStructure.Member member() {
            return read(spec, GuildStructure.Member.class);
        }

        RestorePlanner.RolePositions positions() {
            return read(spec, RestorePlanner.RolePositions.class);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String INSERT = """
            insert into restore_step (job_id, seq, kind, target_id, spec, status) values (:jobId, :seq, :kind, :targetId, :spec, 'PENDING')""";
    private static final String OF_JOB = """
            select seq, kind, target_id, spec, status, discord_id from restore_step where job_id = $1 order by seq""";
    private static final String ATTEMPTED = "update restore_step set status = 'ATTEMPTED' where job_id = :jobId and seq = :seq and status = 'PENDING'";
    private static final String DONE = """
            update restore_step set status = 'DONE', discord_id = :discordId, done_at = :at
            where job_id = :jobId and seq = :seq and status <> 'DONE'""";
    private static final String SKIPPED = """
            update restore_step set status = 'SKIPPED', note = :note, done_at = :at
            where job_id = :jobId and seq = :seq and status not in ('DONE', 'SKIPPED')""";
    private static final String COUNT_SKIPPED = """
            update restore_job set done_steps = done_steps + 1, skipped_count = skipped_count + 1, failed_tries = 0 where id = :jobId""";
    private static final String COUNT = """
            update restore_job set done_steps = done_steps + 1, failed_tries = 0, created_count = created_count + :created,
                   updated_count = updated_count + :updated, deleted_count = deleted_count + :deleted
            where id = :jobId""";

    private RestoreSteps() {
    }

    static Uni<Void> insert(UUID jobId, List<RestorePlanner.Step> steps) {
        return Panache.getSession().chain(session -> {
            Uni<Integer> inserted = Uni.createFrom().item(0);
            for (int i = 0; i < steps.size(); i++) {
                RestorePlanner.Step step = steps.get(i);
                int seq = i;
                inserted = inserted.chain(() -> session.createNativeQuery(INSERT).setParameter("jobId", jobId).setParameter("seq", seq)
                        .setParameter("kind", step.kind().name()).setParameter("targetId", step.targetId())
                        .setParameter("spec", write(step.spec())).executeUpdate());
            }
            return inserted;
        }).replaceWithVoid();
    }

    static Uni<List<Stored>> of(UUID jobId) {
        return Panache.getSession().chain(session -> NativeSelects.select(session, OF_JOB, jobId))
                .map(rows -> {
                    List<Stored> steps = new ArrayList<>();
                    rows.forEach(row -> steps.add(new Stored(((Number) row[0]).intValue(), StepKind.valueOf((String) row[1]), (String) row[2],
                            (String) row[3], (String) row[4], (String) row[5])));
                    return steps;
                });
    }

    static Uni<Void> attempted(UUID jobId, Stored step) {
        return Panache.getSession().chain(session -> session.createNativeQuery(ATTEMPTED).setParameter("jobId", jobId)
                .setParameter("seq", step.seq()).executeUpdate()).replaceWithVoid();
    }

    /** Marks the step done and counts it, once: a step already done (by a worker that lost its lease meanwhile) is not counted again. */
    static Uni<Void> done(UUID jobId, Stored step, String discordId, Instant at) {
        return Panache.getSession().chain(session -> session.createNativeQuery(DONE).setParameter("jobId", jobId).setParameter("seq", step.seq())
                .setParameter("discordId", discordId).setParameter("at", at).executeUpdate()
                .chain(changed -> changed == 0 ? Uni.createFrom().item(0)
                        : session.createNativeQuery(COUNT).setParameter("jobId", jobId)
                                .setParameter("created", "created".equals(step.kind().counted) ? 1 : 0)
                                .setParameter("updated", "updated".equals(step.kind().counted) ? 1 : 0)
                                .setParameter("deleted", "deleted".equals(step.kind().counted) ? 1 : 0)
                                .executeUpdate()))
                .replaceWithVoid();
    }

    /** Marks the step skipped (Discord refused it) and counts it, once. */
    static Uni<Void> skipped(UUID jobId, Stored step, String note, Instant at) {
        return Panache.getSession().chain(session -> session.createNativeQuery(SKIPPED).setParameter("jobId", jobId).setParameter("seq", step.seq())
                .setParameter("note", note).setParameter("at", at).executeUpdate()
                .chain(changed -> changed == 0 ? Uni.createFrom().item(0)
                        : session.createNativeQuery(COUNT_SKIPPED).setParameter("jobId", jobId).executeUpdate()))
                .replaceWithVoid();
    }

    private static String write(Object spec) {
        try {
            return JSON.writeValueAsString(spec);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static <T> T read(String json, Class<T> type) {
        try {
            return JSON.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
