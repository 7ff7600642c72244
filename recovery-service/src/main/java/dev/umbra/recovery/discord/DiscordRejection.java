package dev.umbra.recovery.discord;

/** Discord answered and refused the call (a 4xx other than 429): the request itself is wrong, sending it again changes nothing. */
public final class DiscordRejection extends RuntimeException {

    private final int status;

    public DiscordRejection(int status, String message) {
        super("Discord refused the call (" + status + "): " + message, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }

    /** What happened in our words, for callers and owners: Discord's own text stays in the log. */
    public String account() {
        return switch (status) {
            case 401 -> "Discord refused the bot's credentials (401)";
            case 403 -> "Discord refused the call (403): the bot lacks a permission it needs in this guild";
            case 404 -> "Discord refused the call (404): it does not know the guild, member, role or channel";
            default -> "Discord refused the call (" + status + ")";
        };
    }
}
