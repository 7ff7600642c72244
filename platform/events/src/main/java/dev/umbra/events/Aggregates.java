package dev.umbra.events;

/** Aggregate types. Each one is a Kafka topic, named by {@link Topics#of(String)}. */
public final class Aggregates {
    public static final String GUILD = "guild";
    public static final String MEMBER = "member";
    public static final String USER = "user";
    public static final String BILLING_KEY = "billing_key";
    public static final String SUBSCRIPTION = "subscription";
    public static final String INVOICE = "invoice";
    public static final String LICENSE = "license";
    public static final String SNAPSHOT = "snapshot";
    public static final String RESTORE_JOB = "restore_job";
    public static final String ANTI_NUKE = "anti_nuke";

    private Aggregates() {
    }
}
