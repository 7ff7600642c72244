package dev.umbra.events;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The event catalogue of docs/architecture.md: every payload type, its name, aggregate and schema version. */
public final class EventCatalog {

    public record Entry(String eventType, String aggregateType, int schemaVersion, Class<? extends DomainEvent> payloadType) {
    }

    private static final List<Class<? extends DomainEvent>> PAYLOAD_TYPES = List.of(
            dev.umbra.events.guild.BotInstalled.class,
            dev.umbra.events.guild.BotKicked.class,
            dev.umbra.events.guild.GuildOwnerChanged.class,
            dev.umbra.events.guild.GuildDeleted.class,
            dev.umbra.events.billing.BillingKeyIssued.class,
            dev.umbra.events.billing.BillingKeyDeleted.class,
            dev.umbra.events.billing.SubscriptionStarted.class,
            dev.umbra.events.billing.PaymentSucceeded.class,
            dev.umbra.events.billing.PaymentFailed.class,
            dev.umbra.events.billing.PaymentFailedFinal.class,
            dev.umbra.events.billing.SubscriptionCanceled.class,
            dev.umbra.events.billing.SubscriptionSuspended.class,
            dev.umbra.events.billing.SubscriptionResumed.class,
            dev.umbra.events.billing.PlanUpgraded.class,
            dev.umbra.events.billing.PlanDowngraded.class,
            dev.umbra.events.billing.InvoiceGenerated.class,
            dev.umbra.events.billing.RefundSucceeded.class,
            dev.umbra.events.billing.LedgerEntryCorrected.class,
            dev.umbra.events.billing.StrayChargeReturned.class,
            dev.umbra.events.licensing.LicenseGranted.class,
            dev.umbra.events.licensing.LicenseExtended.class,
            dev.umbra.events.licensing.LicenseDowngraded.class,
            dev.umbra.events.licensing.LicenseSuspended.class,
            dev.umbra.events.licensing.LicenseCanceled.class,
            dev.umbra.events.recovery.SnapshotCreated.class,
            dev.umbra.events.recovery.SnapshotDeleted.class,
            dev.umbra.events.recovery.RestoreStarted.class,
            dev.umbra.events.recovery.RestoreCompleted.class,
            dev.umbra.events.recovery.RestoreFailed.class,
            dev.umbra.events.recovery.AntiNukeTriggered.class,
            dev.umbra.events.recovery.AntiNukeActioned.class,
            dev.umbra.events.member.MemberJoinedViaWebJoin.class,
            dev.umbra.events.member.MemberRestored.class,
            dev.umbra.events.identity.UserRegistered.class,
            dev.umbra.events.identity.UserSessionCreated.class);

    private static final Map<String, Entry> BY_TYPE = new LinkedHashMap<>();
    private static final Map<Class<?>, Entry> BY_CLASS = new LinkedHashMap<>();

    static {
        for (Class<? extends DomainEvent> payloadType : PAYLOAD_TYPES) {
            EventContract contract = payloadType.getAnnotation(EventContract.class);
            if (contract == null) {
                throw new IllegalStateException(payloadType + " lacks @EventContract");
            }
            Entry entry = new Entry(payloadType.getSimpleName(), contract.aggregate(), contract.version(), payloadType);
            BY_TYPE.put(entry.eventType(), entry);
            BY_CLASS.put(payloadType, entry);
        }
    }

    private EventCatalog() {
    }

    public static Entry entryOf(Class<?> payloadType) {
        Entry entry = BY_CLASS.get(payloadType);
        if (entry == null) {
            throw new IllegalArgumentException(payloadType.getName() + " is not in the event catalogue");
        }
        return entry;
    }

    public static Optional<Entry> find(String eventType) {
        return Optional.ofNullable(BY_TYPE.get(eventType));
    }

    public static Collection<Entry> entries() {
        return BY_TYPE.values();
    }
}
