package dev.umbra.billing.subscription;

/** What can move a subscription: a user's command, a charge's outcome, a job's finding or another context's event. */
public enum Trigger {
    FIRST_CHARGE_SUCCEEDED,
    FIRST_CHARGE_FAILED,
    RENEWAL_SUCCEEDED,
    RENEWAL_FAILED,
    PERIOD_ENDED,
    CANCEL_NOW,
    CANCEL_AT_PERIOD_END,
    GUILD_DELETED,
    SUSPEND,
    RESUME,
    PAY_WITH,
    UPGRADE_CHARGED,
    DOWNGRADE
}
