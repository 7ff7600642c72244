package dev.umbra.billing.subscription;

import static dev.umbra.billing.subscription.SubscriptionStatus.ACTIVE;
import static dev.umbra.billing.subscription.SubscriptionStatus.CANCELED;
import static dev.umbra.billing.subscription.SubscriptionStatus.PAST_DUE;
import static dev.umbra.billing.subscription.SubscriptionStatus.PENDING;
import static dev.umbra.billing.subscription.SubscriptionStatus.SUSPENDED;

import java.util.EnumMap;
import java.util.Map;
import java.util.Set;

/**
 * Which trigger may move a subscription from which status to which. {@link Subscription} consults it
 * for every change it makes; a trigger on a status it has no row for is rejected. Repeating a trigger
 * whose effect is already there (cancel a canceled subscription, suspend a suspended one) is a no-op,
 * not a transition, and is not listed.
 */
public final class TransitionTable {

    private static final Map<Trigger, Map<SubscriptionStatus, Set<SubscriptionStatus>>> TABLE = new EnumMap<>(Trigger.class);

    static {
        // a reason to suspend recorded while the first charge was pending takes effect when it succeeds
        row(Trigger.FIRST_CHARGE_SUCCEEDED, PENDING, ACTIVE, SUSPENDED);
        row(Trigger.FIRST_CHARGE_FAILED, PENDING, CANCELED);
        // A charge in flight when the subscription was suspended still counts when it resolves.
        row(Trigger.RENEWAL_SUCCEEDED, ACTIVE, ACTIVE);
        row(Trigger.RENEWAL_SUCCEEDED, PAST_DUE, ACTIVE);
        row(Trigger.RENEWAL_SUCCEEDED, SUSPENDED, SUSPENDED);
        row(Trigger.RENEWAL_FAILED, ACTIVE, PAST_DUE, CANCELED);
        row(Trigger.RENEWAL_FAILED, PAST_DUE, PAST_DUE, CANCELED);
        row(Trigger.RENEWAL_FAILED, SUSPENDED, SUSPENDED, CANCELED);
        row(Trigger.PERIOD_ENDED, ACTIVE, CANCELED);
        row(Trigger.PERIOD_ENDED, SUSPENDED, CANCELED);
        // flagged while its renewal was in flight, and that renewal declined
        row(Trigger.PERIOD_ENDED, PAST_DUE, CANCELED);
        for (SubscriptionStatus from : Set.of(PENDING, ACTIVE, PAST_DUE, SUSPENDED)) {
            row(Trigger.CANCEL_NOW, from, CANCELED);
            row(Trigger.GUILD_DELETED, from, CANCELED);
        }
        row(Trigger.CANCEL_AT_PERIOD_END, ACTIVE, ACTIVE);
        row(Trigger.SUSPEND, PENDING, PENDING);
        row(Trigger.SUSPEND, ACTIVE, SUSPENDED);
        row(Trigger.SUSPEND, PAST_DUE, SUSPENDED);
        row(Trigger.SUSPEND, SUSPENDED, SUSPENDED);
        // a subscription canceled at period end whose period ended while it was suspended ends when resumed
        row(Trigger.RESUME, SUSPENDED, ACTIVE, PAST_DUE, SUSPENDED, CANCELED);
        row(Trigger.RESUME, PENDING, PENDING);
        row(Trigger.PAY_WITH, ACTIVE, ACTIVE);
        row(Trigger.PAY_WITH, PAST_DUE, PAST_DUE);
        row(Trigger.PAY_WITH, SUSPENDED, ACTIVE, PAST_DUE, SUSPENDED, CANCELED);
        row(Trigger.UPGRADE_CHARGED, ACTIVE, ACTIVE);
        row(Trigger.UPGRADE_CHARGED, PAST_DUE, PAST_DUE);
        row(Trigger.UPGRADE_CHARGED, SUSPENDED, SUSPENDED);
        row(Trigger.DOWNGRADE, ACTIVE, ACTIVE);
    }

    private TransitionTable() {
    }

    private static void row(Trigger trigger, SubscriptionStatus from, SubscriptionStatus... to) {
        TABLE.computeIfAbsent(trigger, t -> new EnumMap<>(SubscriptionStatus.class)).put(from, Set.of(to));
    }

    public static boolean allows(Trigger trigger, SubscriptionStatus from) {
        return TABLE.getOrDefault(trigger, Map.of()).containsKey(from);
    }

    public static boolean allows(Trigger trigger, SubscriptionStatus from, SubscriptionStatus to) {
        return TABLE.getOrDefault(trigger, Map.of()).getOrDefault(from, Set.of()).contains(to);
    }

    static void require(Trigger trigger, SubscriptionStatus from, String why) {
        if (!allows(trigger, from)) {
            throw new IllegalTransitionException(from, trigger, why);
        }
    }
}
