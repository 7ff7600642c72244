package dev.umbra.billing.clock;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The service's clock: the system's in UTC, plus an offset that only the test-only clock control
 * ({@link ClockControlResource}, off in production) moves, so that renewals and dunning can be played
 * through months in seconds. Every bean that asks for a {@link Clock} gets this one (it replaces the
 * platform's default), so the work queue, the outbox and the rules see the same time.
 */
@ApplicationScoped
public class MovableClock extends Clock {

    private final Clock system = Clock.systemUTC();
    private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

    @Override
    public Instant instant() {
        return system.instant().plus(offset.get());
    }

    /** Moves the clock forward; it never goes back (leases and periods assume time only grows). */
    public Instant advance(Duration by) {
        if (by.isNegative()) {
            throw new IllegalArgumentException("the clock only moves forward");
        }
        offset.accumulateAndGet(by, Duration::plus);
        return instant();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the service's clock is UTC");
    }
}
