package dev.umbra.billing.subscription;

/**
 * The subscription's state does not allow this now (the edge answers 409). A charge outcome rejected
 * this way means money was taken for a subscription that can no longer use it: SubscriptionPayments gives it back.
 */
public class IllegalTransitionException extends RuntimeException {

    private final SubscriptionStatus status;
    private final Trigger trigger;

    public IllegalTransitionException(SubscriptionStatus status, Trigger trigger, String why) {
        super(trigger + " is not allowed on a " + status + " subscription: " + why);
        this.status = status;
        this.trigger = trigger;
    }

    public SubscriptionStatus status() {
        return status;
    }

    public Trigger trigger() {
        return trigger;
    }
}
