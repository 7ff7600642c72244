package dev.umbra.billing.gateway;

import dev.umbra.platform.web.ProblemException;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;

/**
 * What a charge call tells the caller about the money. Only {@link Accepted} and {@link Uncertain}
 * may have charged the card: both leave the payment IN_PROGRESS until a callback or a look-up settles
 * it, and neither may be sent again blindly. {@link Rejected} and {@link SurelyNotArrived} surely did
 * not charge: the caller rolls the attempt back.
 */
public sealed interface ChargeOutcome {

    /**
     * The gateway took the request: its payment key, the status it gave at once, and the amount it says it
     * charged ({@code null} when its answer names none: then only a look-up can tell).
     */
    record Accepted(String paymentKey, String status, Long totalAmount) implements ChargeOutcome {
    }

    /** The gateway answered and refused the request (unknown billing key, invalid amount…): nothing charged. */
    record Rejected(int httpStatus, String code, String message) implements ChargeOutcome {

        /**
         * The gateway holds an earlier request with this idempotency key for another amount or order: nothing was charged
         * now, but that request may have charged.
         */
        public boolean keyUsedBefore() {
            return "IDEMPOTENCY_KEY_REUSED".equals(code);
        }
    }

    /**
     * The request never reached the gateway (circuit open, no connection), or the gateway answered that it did
     * nothing (500/429 after every retry: {@code answeredUnprocessed}, which only its contract makes sure).
     */
    record SurelyNotArrived(String reason, boolean circuitOpen, boolean answeredUnprocessed) implements ChargeOutcome {

        public SurelyNotArrived(String reason, boolean circuitOpen) {
            this(reason, circuitOpen, false);
        }

        /** What the edge answers: 503 while the circuit is open, 502 when the gateway failed. */
        public ProblemException problem() {
            return circuitOpen
                    ? new ProblemException(503, "Service Unavailable", "the payment gateway is unavailable; nothing was charged, try again later")
                    : new ProblemException(502, "Bad Gateway", "the payment gateway did not take the request; nothing was charged, try again");
        }
    }

    /** The request may have reached the gateway (no answer in time, connection reset): the card may be charged. */
    record Uncertain(String reason) implements ChargeOutcome {
    }

    /**
     * The outcome of a call that failed after the guard: what the failure proves about the request; {@code answeredBefore}:
     * an earlier try of the same call was answered 500 or 429.
     */
    static ChargeOutcome ofFailure(Throwable failure, boolean answeredBefore) {
        if (failure instanceof CircuitBreakerOpenException) {
            return new SurelyNotArrived("circuit open", true, answeredBefore);
        }
        if (failure instanceof SendWindowClosed) {
            return new SurelyNotArrived(failure.getMessage(), false, answeredBefore);
        }
        if (failure instanceof GatewayFault fault && fault.surelyNotArrived()) {
            return new SurelyNotArrived(fault.getMessage(), false, answeredBefore || fault.answered());
        }
        return new Uncertain(failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage());
    }
}
