package dev.umbra.billing.web;

import dev.umbra.platform.web.ProblemException;
import java.time.Duration;

/** The payment gateway surely did not take the request: a 502/503 problem with Retry-After; nothing was charged. */
public class GatewayUnavailableException extends RuntimeException {

    private final ProblemException problem;
    private final Duration retryAfter;

    public GatewayUnavailableException(ProblemException problem, Duration retryAfter) {
        super(problem.getMessage());
        this.problem = problem;
        this.retryAfter = retryAfter;
    }

    public ProblemException problem() {
        return problem;
    }

    public Duration retryAfter() {
        return retryAfter;
    }
}
