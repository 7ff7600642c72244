package dev.umbra.billing;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The bodies of billing-service's REST API, registered for the native image: Quarkus finds
 * most of them by itself, but a body reached only through a generic type or a field is not, and a
 * missing one fails only in the native build's users' hands. {@code RestPayloadsRegisteredTest} fails
 * when a body of an endpoint is missing here. Named, not class literals: some are nested in their
 * resources, out of this package's reach.
 */
@RegisterForReflection(classNames = {
        "dev.umbra.billing.billingkey.BillingKeyResource$IssueRequest",
        "dev.umbra.billing.billingkey.BillingKeyView",
        "dev.umbra.billing.clock.ClockControlResource$Advance",
        "dev.umbra.billing.clock.ClockControlResource$Now",
        "dev.umbra.billing.invoice.InvoiceLine",
        "dev.umbra.billing.invoice.InvoiceResource$RefundRequest",
        "dev.umbra.billing.invoice.InvoiceStatus",
        "dev.umbra.billing.invoice.InvoiceView",
        "dev.umbra.billing.invoice.RefundStatus",
        "dev.umbra.billing.invoice.RefundView",
        "dev.umbra.billing.ledger.EntryKind",
        "dev.umbra.billing.ledger.LedgerResource$BalanceView",
        "dev.umbra.billing.ledger.LedgerResource$CorrectionRequest",
        "dev.umbra.billing.ledger.LedgerResource$CorrectionView",
        "dev.umbra.billing.ledger.LedgerResource$EntryView",
        "dev.umbra.billing.ledger.LedgerResource$LedgerView",
        "dev.umbra.billing.plan.PlanResource$PlanView",
        "dev.umbra.billing.subscription.SubscriptionResource$PaymentMethodRequest",
        "dev.umbra.billing.subscription.SubscriptionResource$PlanChangeRequest",
        "dev.umbra.billing.subscription.SubscriptionResource$SubscribeRequest",
        "dev.umbra.billing.subscription.SubscriptionView"})
final class RestReflection {

    private RestReflection() {
    }
}
