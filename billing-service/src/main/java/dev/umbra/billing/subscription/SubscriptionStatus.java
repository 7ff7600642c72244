package dev.umbra.billing.subscription;

public enum SubscriptionStatus {
    /** Created, first charge not resolved yet; nobody outside billing has heard of it. */
    PENDING,
    /** Paid through the current period. */
    ACTIVE,
    /** A renewal failed; dunning retries it. */
    PAST_DUE,
    /** The bot was kicked or the paying billing key deleted: no renewals until resumed. */
    SUSPENDED,
    /** Final. */
    CANCELED
}
