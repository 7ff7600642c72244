package dev.umbra.billing.subscription;

/** A well-formed request that breaks a plan rule, e.g. a "downgrade" to a higher plan (the edge answers 422). */
public class PlanChangeRejectedException extends RuntimeException {

    public PlanChangeRejectedException(String why) {
        super(why);
    }
}
