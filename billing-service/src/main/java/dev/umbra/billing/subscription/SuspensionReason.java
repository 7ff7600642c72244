package dev.umbra.billing.subscription;

/** Why a subscription is suspended; each reason is lifted by its own cause going away. */
public enum SuspensionReason {
    /** The guild kicked the bot (BotKicked); lifted when the bot is installed again. */
    BOT_KICKED,
    /** The billing key that pays was deleted (BillingKeyDeleted); lifted by a new billing key. */
    BILLING_KEY_DELETED
}
