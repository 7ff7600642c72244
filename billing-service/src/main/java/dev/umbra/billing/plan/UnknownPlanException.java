package dev.umbra.billing.plan;

/** A plan code that is not in the catalogue; the edge answers 422. */
public class UnknownPlanException extends RuntimeException {

    public UnknownPlanException(String code) {
        super("no plan with code " + code);
    }
}
