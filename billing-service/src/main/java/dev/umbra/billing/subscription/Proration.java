package dev.umbra.billing.subscription;

import dev.umbra.billing.plan.Plan;
import java.time.Duration;
import java.time.Instant;

/**
 * The price of upgrading in the middle of a paid period: the price difference for the days left.
 * <ul>
 * <li>Days left: from {@code at} to the period end, a started day counts as a whole day (the upgraded
 * plan is in use on it).</li>
 * <li>Days of the period: its own length (28 to 31).</li>
 * <li>Amount: (new price − old price) × days left ÷ days of the period, rounded DOWN to whole won, so
 * the customer never pays more than the exact share.</li>
 * </ul>
 */
public final class Proration {

    private static final long SECONDS_PER_DAY = Duration.ofDays(1).toSeconds();

    private Proration() {
    }

    public static long upgradeAmount(Plan from, Plan to, Period period, Instant at) {
        if (!to.isAbove(from)) {
            throw new PlanChangeRejectedException(to.code() + " is not above " + from.code());
        }
        if (!period.contains(at)) {
            throw new IllegalArgumentException(at + " is outside the period " + period);
        }
        long daysLeft = ceilDiv(Duration.between(at, period.end()).toSeconds(), SECONDS_PER_DAY);
        long periodDays = ceilDiv(Duration.between(period.start(), period.end()).toSeconds(), SECONDS_PER_DAY);
        long difference = to.monthlyPrice() - from.monthlyPrice();
        return Math.multiplyExact(difference, daysLeft) / periodDays;
    }

    private static long ceilDiv(long dividend, long divisor) {
        return -Math.floorDiv(-dividend, divisor);
    }
}
