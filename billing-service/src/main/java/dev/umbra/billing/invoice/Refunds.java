package dev.umbra.billing.invoice;

import dev.umbra.billing.gateway.CancelOutcome;
import dev.umbra.billing.gateway.PaymentGatewayClient;
import dev.umbra.billing.ledger.EntryKind;
import dev.umbra.billing.ledger.LedgerService;
import dev.umbra.billing.payment.Payment;
import dev.umbra.billing.payment.PaymentStatus;
import dev.umbra.billing.payment.ReconciliationSettings;
import dev.umbra.events.billing.RefundSucceeded;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.storage.DatabaseGuard;
import dev.umbra.platform.storage.RowDeletes;
import dev.umbra.platform.storage.StorageFaults;
import dev.umbra.platform.web.ProblemException;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Refunds of an invoice, in three steps like a charge, never holding a transaction across the
 * gateway call: (1) with the invoice locked, the refund reserves its amount (the refunds of an invoice
 * can never add up to more than was paid, however many arrive at once) and is stored IN_PROGRESS;
 * (2) the gateway is asked to cancel that amount of the invoice's payment, with the refund's own
 * idempotency key; (3) its answer is applied: given back → SUCCEEDED, RefundSucceeded, the invoice's
 * status and the ledger's REFUND entry; refused → FAILED and the reservation freed; surely not sent →
 * the refund is deleted (rolled back) and the reservation freed; answered 500/429 (nothing done, by the
 * gateway's contract only) → FAILED, the reservation freed, and watched by {@link LateRefunds} in case the
 * gateway gave the money back after all (deleted, a retry would be a new refund with a new key at the
 * gateway); uncertain → left IN_PROGRESS for the reconciliation job, which looks the cancel up and never
 * sends it again. A refund the service asks for itself ({@link #scheduleFull}) is sent by
 * {@link AutomaticRefunds} instead.
 *
 * <p>A request repeated with the same Idempotency-Key (per invoice) finds the first refund and answers
 * its state; one with the same key but another amount or reason is refused.
 */
@ApplicationScoped
public class Refunds {

    /** A refund and, when it was just asked for, the gateway's answer; {@code rolledBack}: it was never sent and is gone. */
    public record Requested(Refund refund, CancelOutcome outcome, boolean rolledBack) {
    }

    /** What step 1 decided: an earlier refund with the same key, or a new one to send. */
    record Prepared(Refund refund, String paymentKey, boolean repeated) {
    }

    /**
     * What step 3 did: the refund (null when rolled back), what became of it (null when it was settled already), and
     * whether it was put under the late-refund watch.
     */
    record Applied(Refund refund, RefundMetrics.Outcome outcome, boolean watched) {

        Applied(Refund refund, RefundMetrics.Outcome outcome) {
            this(refund, outcome, false);
        }
    }

    private static final Logger LOG = Logger.getLogger(Refunds.class);

    private final PaymentGatewayClient gateway;
    private final OutboxWriter outbox;
    private final LedgerService ledger;
    private final RefundMetrics metrics;
    private final ReconciliationSettings settings;
    private final Clock clock;

    public Refunds(PaymentGatewayClient gateway, OutboxWriter outbox, LedgerService ledger, RefundMetrics metrics,
            ReconciliationSettings settings, Clock clock) {
        this.gateway = gateway;
        this.outbox = outbox;
        this.ledger = ledger;
        this.metrics = metrics;
        this.settings = settings;
        this.clock = clock;
    }

    public Uni<Requested> refund(UUID invoiceId, long amount, String reason, String idempotencyKey) {
        return reserve(invoiceId, amount, reason, idempotencyKey).chain(prepared -> {
            if (prepared.repeated()) {
                return Uni.createFrom().item(new Requested(prepared.refund(), null, false));
            }
            Refund refund = prepared.refund();
            return gateway.cancel(prepared.paymentKey(), amount, reason, refund.gatewayKey())
                    .chain(outcome -> Uni.createFrom().deferred(() -> apply(refund.id, prepared.paymentKey(), outcome))
                            .onFailure(StorageFaults::lostRace).retry().atMost(3)
                            .invoke(applied -> {
                                if (applied.outcome() != null) {
                                    metrics.counted(RefundMetrics.Trigger.OPERATOR, applied.outcome());
                                }
                                if (applied.watched()) {
                                    metrics.watch(RefundWatchStatus.WATCHING);
                                }
                            })
                            .map(applied -> new Requested(applied.refund() == null ? refund : applied.refund(), outcome, applied.refund() == null)));
        });
    }

    @WithTransaction
    @DatabaseGuard
    Uni<Prepared> reserve(UUID invoiceId, long amount, String reason, String idempotencyKey) {
        Instant now = clock.instant();
        if (Refund.AUTOMATIC.equals(idempotencyKey)) {
            throw ProblemException.unprocessable("Idempotency-Key " + Refund.AUTOMATIC + " is kept for the refunds the service makes itself");
        }
        return Invoice.lockById(invoiceId).chain(invoice -> {
            if (invoice == null) {
                throw ProblemException.notFound("no invoice " + invoiceId);
            }
            return Refund.<Refund>find("invoiceId = ?1 and idempotencyKey = ?2", invoiceId, idempotencyKey).firstResult().chain(earlier -> {
                if (earlier != null) {
                    if (earlier.amount != amount || !earlier.reason.equals(reason)) {
                        throw ProblemException.unprocessable("Idempotency-Key " + idempotencyKey + " was used for another refund of this invoice ("
                                + earlier.amount + ", \"" + earlier.reason + "\")");
                    }
                    return Uni.createFrom().item(new Prepared(earlier, null, true));
                }
                return Payment.<Payment>findById(invoice.paymentId).chain(payment -> {
                    if (payment == null || payment.status != PaymentStatus.SUCCEEDED || payment.externalPaymentKey == null) {
                        throw new RefundRejectedException("invoice " + invoiceId + " has no payment the gateway took");
                    }
                    invoice.take(invoice.amounts().reserve(amount));
                    Refund refund = Refund.request(invoice, amount, reason, idempotencyKey, now);
                    return refund.persistAndFlush().map(stored -> new Prepared(refund, payment.externalPaymentKey, false));
                });
            });
        });
    }

    /** Applies the gateway's answer to the refund of payment {@code paymentKey}. A refund settled meanwhile stays as it is. */
    @WithTransaction
    @DatabaseGuard
    Uni<Applied> apply(UUID refundId, String paymentKey, CancelOutcome outcome) {
        Instant now = clock.instant();
        return Refund.lockById(refundId).chain(refund -> {
            if (refund.settled()) {
                return Uni.createFrom().item(new Applied(refund, null));
            }
            if (outcome instanceof CancelOutcome.Canceled canceled) {
                return succeed(refund, canceled.transactionKey(), now).replaceWith(new Applied(refund, RefundMetrics.Outcome.SUCCEEDED));
            }
            if (outcome instanceof CancelOutcome.Rejected rejected) {
                return fail(refund, "refused by the gateway: " + rejected.code() + " " + rejected.message(), now)
                        .replaceWith(new Applied(refund, RefundMetrics.Outcome.FAILED));
            }
            if (outcome instanceof CancelOutcome.SurelyNotArrived notArrived && notArrived.answeredUnprocessed()) {
                return fail(refund, "the gateway answered that it did nothing: " + notArrived.reason(), now)
                        .chain(() -> RefundWatch.of(refund, paymentKey, now, settings.interval(), settings.strayWatch()).persist())
                        .replaceWith(new Applied(refund, RefundMetrics.Outcome.FAILED, true));
            }
            if (outcome instanceof CancelOutcome.SurelyNotArrived) {
                return release(refund).chain(() -> RowDeletes.delete(refund, "refund", refund.id))
                        .replaceWith(new Applied(null, RefundMetrics.Outcome.NOT_SENT));
            }
            LOG.debugf("refund %s: the gateway's answer is uncertain, left IN_PROGRESS for reconciliation", refund.id);
            return Uni.createFrom().item(new Applied(refund, RefundMetrics.Outcome.UNCERTAIN));
        });
    }

    /**
     * In the transaction that settles a charge its subscription could not use: the whole invoice is
     * reserved for a refund of the service's own, SCHEDULED, which {@link AutomaticRefunds} gives back.
     */
    public Uni<Refund> scheduleFull(Invoice invoice, String reason, Instant at) {
        invoice.take(invoice.amounts().reserve(invoice.total));
        Refund refund = Refund.schedule(invoice, invoice.total, reason, at);
        return refund.persist();
    }

    /** The gateway gave the money back: in the caller's transaction, with the refund row locked. */
    Uni<Void> succeed(Refund refund, String transactionKey, Instant at) {
        refund.succeed(transactionKey, at);
        return Invoice.lockById(refund.invoiceId).chain(invoice -> {
            invoice.take(invoice.amounts().refundSucceeded(refund.amount));
            RefundSucceeded event = new RefundSucceeded(refund.id, invoice.id, BigDecimal.valueOf(refund.amount), refund.currency);
            return outbox.publish(event, at).chain(envelope -> ledger.book(invoice.subscriptionId, EntryKind.REFUND, -refund.amount,
                    refund.currency, envelope.eventId(), invoice.id, "refund " + refund.id + ": " + refund.reason, refund.attemptedAt, at));
        });
    }

    /**
     * The gateway executed the cancel of a refund failed here without its word ({@link LateRefunds}): the
     * amount is reserved again and the refund SUCCEEDED as in {@link #succeed} (RefundSucceeded, the
     * invoice's refunded amount and status, the ledger's REFUND). In the caller's transaction, with the
     * refund row locked. False, and nothing changed, while refunds in flight keep more of the invoice
     * reserved than the cancel leaves room for: the gateway cannot execute them all, so they fail and free it.
     */
    Uni<Boolean> recordLate(Refund refund, String transactionKey, Instant at) {
        return Invoice.lockById(refund.invoiceId).chain(invoice -> {
            if (invoice.amounts().refundable() < refund.amount) {
                return Uni.createFrom().item(false);
            }
            invoice.take(invoice.amounts().reserve(refund.amount));
            refund.failureMessage = null;
            return succeed(refund, transactionKey, at).replaceWith(true);
        });
    }

    /** Nothing was given back: in the caller's transaction, with the refund row locked. */
    Uni<Void> fail(Refund refund, String reason, Instant at) {
        refund.fail(reason, at);
        return release(refund);
    }

    private static Uni<Void> release(Refund refund) {
        return Invoice.lockById(refund.invoiceId).invoke(invoice -> invoice.take(invoice.amounts().refundAbandoned(refund.amount)))
                .replaceWithVoid();
    }
}
