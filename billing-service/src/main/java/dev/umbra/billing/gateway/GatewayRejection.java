package dev.umbra.billing.gateway;

/** The gateway answered and refused the request (a 4xx other than 429): it was processed and did nothing. */
public final class GatewayRejection extends RuntimeException {

    private final int httpStatus;
    private final String code;

    public GatewayRejection(int httpStatus, String code, String message) {
        super(httpStatus + " " + code + ": " + message);
        this.httpStatus = httpStatus;
        this.code = code;
    }

    public int httpStatus() {
        return httpStatus;
    }

    public String code() {
        return code;
    }
}
