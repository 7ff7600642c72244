package dev.umbra.recovery.discord;

/** Discord answered and refused the call (a 4xx other than 429): the request itself is wrong, sending it again changes nothing. */
public final class DiscordRejection extends RuntimeException {

    private final int status;

    DiscordRejection(int status, String message) {
        super("Discord refused the call (" + status + "): " + message, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
