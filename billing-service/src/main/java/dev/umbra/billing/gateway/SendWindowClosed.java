package dev.umbra.billing.gateway;

/**
 * A try the guard was about to send after the charge's time to reach the gateway was over: not sent. Past that time the
 * billing key may be deleted (its charges on their way have expired), so nothing more goes out with it.
 */
public final class SendWindowClosed extends RuntimeException {

    public SendWindowClosed() {
        super("not sent: the charge's time to reach the gateway is over", null, false, false);
    }
}
