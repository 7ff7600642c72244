package dev.umbra.billing.gateway;

import dev.umbra.platform.web.ProblemException;

/**
 * What a cancel (refund) call tells the caller about the money, by the same rules as a charge: only
 * {@link Canceled} and {@link Uncertain} may have given money back. An uncertain refund stays
 * IN_PROGRESS until a look-up finds the cancel (by its idempotency key) or proves it never happened;
 * it is never sent again blindly.
 */
public sealed interface CancelOutcome {

    /** The gateway gave the money back: the cancel's transaction key. */
    record Canceled(String transactionKey) implements CancelOutcome {
    }

    /** The gateway answered and refused (more than the balance, a payment not paid…): nothing given back. */
    record Rejected(int httpStatus, String code, String message) implements CancelOutcome {
    }

    /**
     * The request never reached the gateway: nothing given back, the refund is rolled back. Or the gateway answered
     * that it did nothing ({@code answeredUnprocessed}: 500/429 after every retry), which only its contract makes sure
     * of: the refund is failed and watched in case the gateway gave the money back after all.
     */
    record SurelyNotArrived(String reason, boolean circuitOpen, boolean answeredUnprocessed) implements CancelOutcome {

        public ProblemException problem() {
            return new ChargeOutcome.SurelyNotArrived(reason, circuitOpen).problem();
        }
    }

    /** No usable answer: the money may have been given back. */
    record Uncertain(String reason) implements CancelOutcome {
    }

    static CancelOutcome ofFailure(Throwable failure, boolean answeredBefore) {
        ChargeOutcome classified = ChargeOutcome.ofFailure(failure, answeredBefore);
        if (classified instanceof ChargeOutcome.SurelyNotArrived notArrived) {
            return new SurelyNotArrived(notArrived.reason(), notArrived.circuitOpen(), notArrived.answeredUnprocessed());
        }
        return new Uncertain(((ChargeOutcome.Uncertain) classified).reason());
    }
}
