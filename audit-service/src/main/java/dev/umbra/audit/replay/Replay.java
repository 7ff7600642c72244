package dev.umbra.audit.replay;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.LockModeType;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import io.smallrye.mutiny.Uni;
import java.time.Instant;
import java.util.UUID;

/** One replay: its scope, how far it got (the cursor: the last event published, in recorded order) and what became of it. */
@Entity
@Table(name = "replay")
public class Replay extends PanacheEntityBase {

    @Id
    public UUID id;

    @Column(name = "aggregate_type")
    public String aggregateType;

    @Column(name = "aggregate_id")
    public String aggregateId;

    @Column(name = "occurred_from")
    public Instant occurredFrom;

    @Column(name = "occurred_to")
    public Instant occurredTo;

    @Column(nullable = false)
    public String scope;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public ReplayStatus status;

    /** Stored events in scope when the replay was asked for. */
    @Column(nullable = false)
    public int total;

    @Column(nullable = false)
    public int published;

    /** Events in scope whose payload was masked when stored: never published (a masked payload is not the event). */
    @Column(name = "refused_masked", nullable = false)
    public int refusedMasked;

    /**
     * Events in scope recorded more than half the consumers' dedupe horizon ago: never published, since a consumer
     * that forgot it applied one would apply it again.
     */
    @Column(name = "refused_old", nullable = false)
    public int refusedOld;

    @Column(name = "cursor_recorded_at")
    public Instant cursorRecordedAt;

    @Column(name = "cursor_sequence")
    public Long cursorSequence;

    @Column(name = "cursor_event_id")
    public UUID cursorEventId;

    @Column(name = "requested_at", nullable = false)
    public Instant requestedAt;

    @Column(name = "finished_at")
    public Instant finishedAt;

    public String note;

    @Version
    public int version;

    static Uni<Replay> lockById(UUID id) {
        return findById(id, LockModeType.PESSIMISTIC_WRITE);
    }

    ReplayScope replayScope() {
        return new ReplayScope(aggregateType, aggregateId, occurredFrom, occurredTo);
    }
}
