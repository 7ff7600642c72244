package dev.umbra.billing.subscription;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * Monthly periods counted from the instant of the first charge. Period n starts at anchor + n months
 * and ends where period n + 1 starts, so periods are contiguous by construction; counting every period
 * from the anchor (not from the previous end) keeps a start on the 31st from drifting to the 28th.
 * Months are calendar months in UTC.
 */
public record BillingCycle(Instant anchor) {

    public BillingCycle {
        Objects.requireNonNull(anchor, "anchor");
    }

    public Period period(int number) {
        return new Period(number, monthsAfterAnchor(number), monthsAfterAnchor(number + 1));
    }

    /** The period that contains {@code at}; the first one for an instant before the anchor. */
    public Period periodAt(Instant at) {
        ZonedDateTime start = anchor.atZone(ZoneOffset.UTC);
        int number = (int) Math.max(0, ChronoUnit.MONTHS.between(start, at.atZone(ZoneOffset.UTC)));
        Period period = period(number);
        while (!period.end().isAfter(at)) {
            period = period(period.number() + 1);
        }
        return period;
    }

    private Instant monthsAfterAnchor(int months) {
        return anchor.atZone(ZoneOffset.UTC).plusMonths(months).toInstant();
    }
}
