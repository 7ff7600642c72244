package dev.umbra.billing.gateway;

import io.smallrye.config.ConfigMapping;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import java.util.Optional;

/**
 * Where the payment gateway is and how each of its two clients is guarded. The values (in
 * application.properties, with short ones for tests) and their SmallRye equivalents are tabled in the
 * service README.
 */
@ConfigMapping(prefix = "umbra.payment-gateway")
public interface PaymentGatewaySettings {

    /** The gateway's base URL. */
    String url();

    /** The API secret key, sent as the user name of HTTP Basic authentication. */
    String secretKey();

    /** The key of the HMAC-SHA256 that signs the gateway's callbacks (verified by the callback intake). */
    Optional<String> callbackSecret();

    /** Charges, cancellations and billing-key issue. */
    Client payment();

    /** Look-ups of payments. */
    Client query();

    interface Client {
        /** Opening the TCP connection: a connect that fails surely did not deliver the request. */
        Duration connectTimeout();

        /** Waiting for the answer once the request is sent: past it, the outcome is uncertain. */
        Duration readTimeout();

        /** A call slower than this counts in the slow-call rate. */
        Duration slowCallThreshold();

        Retry retry();

        Circuit circuit();

        /** The longest one call can take with all the guard's tries: each connect and read timing out, each backoff at its longest. */
        default Duration longestCall() {
            return lastTryStartsWithin().plus(connectTimeout()).plus(readTimeout());
        }

        /** How long after a call's start its last try can start at the latest: every earlier try and backoff at its longest. */
        default Duration lastTryStartsWithin() {
            Duration oneTry = connectTimeout().plus(readTimeout());
            Duration backoff = retry().maxDelay().plus(retry().jitter());
            return oneTry.plus(backoff).multipliedBy(retry().maxRetries());
        }
    }

    /** Retries only of calls that surely did not reach the gateway. */
    interface Retry {
        @Min(0)
        int maxRetries();

        /** First backoff; it doubles up to {@link #maxDelay()}. */
        Duration initialDelay();

        Duration maxDelay();

        /** Each backoff is moved by a random amount up to this, either way. */
        Duration jitter();
    }

    interface Circuit {
        /** Final results (after retries) in the rolling window; the ratio is judged once it is full. */
        @Min(1)
        int window();

        @DecimalMin("0.01")
        @DecimalMax("1.0")
        double failureRatio();

        /** Open → half-open. */
        Duration delay();

        /** Trial calls in half-open that must succeed to close. */
        @Min(1)
        int halfOpenCalls();
    }
}
