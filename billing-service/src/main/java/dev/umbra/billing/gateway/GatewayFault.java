package dev.umbra.billing.gateway;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/**
 * A call to the gateway that got no usable answer, with what that tells about the request: either
 * it surely never reached the gateway (safe to send again), or it may have (the gateway may have acted
 * on it: never sent again blindly). Both count against the circuit breaker; only the first is retried.
 */
public final class GatewayFault extends RuntimeException {

    private static final Pattern BILLING_KEY_IN_PATH = Pattern.compile("/v1/billing/(?!authorizations/)[^\\s?/]+");

    private final boolean surelyNotArrived;
    private final boolean answered;

    private GatewayFault(String message, boolean surelyNotArrived, boolean answered) {
        super(message, null, false, false);
        this.surelyNotArrived = surelyNotArrived;
        this.answered = answered;
    }

    /**
     * A failure of the transport. Only a connection that could not be opened proves the request was
     * never sent; a timeout while waiting for the answer, a reset or a closed connection, and anything
     * not recognised, leave the outcome uncertain. The failure is described, not kept as the cause: its
     * message may name the charge's URL, and so the billing key, for whoever logs the fault whole.
     */
    public static GatewayFault of(Throwable transportFailure) {
        for (Throwable cause = transportFailure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ConnectException || cause instanceof UnknownHostException || cause instanceof NoRouteToHostException) {
                return new GatewayFault("could not connect: " + describe(cause), true, false);
            }
        }
        return new GatewayFault("no answer: " + describe(transportFailure), false, false);
    }

    /**
     * An answer that says the request was not processed: 500 and 429 are, by the gateway's contract,
     * answered before anything is done. Other statuses are answers, not faults.
     */
    public static boolean refusedUnprocessed(int httpStatus) {
        return httpStatus == 500 || httpStatus == 429;
    }

    public static GatewayFault refused(int httpStatus) {
        return new GatewayFault("the gateway answered " + httpStatus, true, true);
    }

    /**
     * Any other 5xx (a 502/503/504 of a proxy or load balancer in front of the gateway, say): the
     * request may have reached the gateway behind it.
     */
    public static boolean failedUncertain(int httpStatus) {
        return httpStatus >= 500 && !refusedUnprocessed(httpStatus);
    }

    public static GatewayFault failed(int httpStatus) {
        return new GatewayFault("the gateway answered " + httpStatus, false, true);
    }

    public boolean surelyNotArrived() {
        return surelyNotArrived;
    }

    /** The gateway itself answered (a status), as opposed to no connection or no answer at all. */
    public boolean answered() {
        return answered;
    }

    /** The failure in words, without the billing key that a charge's URI carries (Vert.x names the request in its timeout message). */
    private static String describe(Throwable failure) {
        String message = failure.getMessage() == null ? "" : " " + BILLING_KEY_IN_PATH.matcher(failure.getMessage()).replaceAll("/v1/billing/***");
        return failure.getClass().getSimpleName() + message;
    }
}
