package dev.umbra.billing.payment;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.MappedSuperclass;
import jakarta.persistence.Version;
import java.time.Duration;
import java.time.Instant;

/**
 * Something billing waits to see at the gateway (a stray charge, a refund's late cancel): looked at ever
 * less often until it shows up or its watch ends. The looking schedule; what is watched, and how it ends,
 * belong to the subclass.
 */
@MappedSuperclass
public abstract class GatewayWatch extends PanacheEntityBase {

    private static final int MAX_TEXT = 500;

    /** What the last look found. */
    public String detail;

    public int looks;

    @Column(name = "next_look_at", nullable = false)
    public Instant nextLookAt;

    @Column(name = "watch_until", nullable = false)
    public Instant watchUntil;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(name = "resolved_at")
    public Instant resolvedAt;

    @Version
    public long version;

    /**
     * Looked at once more without a conclusion: the next look waits twice as long as the last, up to {@code longest}.
     * A look that finds the next one already scheduled after {@code at} changes nothing: another run (a replica whose
     * lease overlapped this one's) looked since this run found the watch due, and one look may double the wait once.
     */
    public void lookAgain(String found, Instant at, Duration first, Duration longest) {
        if (nextLookAt != null && nextLookAt.isAfter(at)) {
            return;
        }
        Duration wait = first.multipliedBy(1L << Math.min(looks, 20));
        lookAt(found, at.plus(wait.compareTo(longest) > 0 ? longest : wait));
    }

    /** Looked at once more; the next look at {@code next}. */
    protected void lookAt(String found, Instant next) {
        detail = truncated(found);
        nextLookAt = next;
        looks++;
    }

    /** The last look: it ended the watch. */
    protected void ended(String found, Instant at) {
        detail = truncated(found);
        resolvedAt = at;
        looks++;
    }

    protected static String truncated(String text) {
        return text == null || text.length() <= MAX_TEXT ? text : text.substring(0, MAX_TEXT);
    }
}
