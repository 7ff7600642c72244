package dev.umbra.platform.web;

/** The roles of the {@code groups} claim of Umbra's JWTs. */
public final class Roles {
    /** The Discord bot gateway. */
    public static final String BOT = "bot";
    /** A person signed in through Discord OAuth. */
    public static final String USER = "user";
    /** An operator of Umbra. */
    public static final String ADMIN = "admin";

    private Roles() {
    }
}
