package dev.umbra.billing.payment;

import dev.umbra.platform.storage.StorageFaults;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.persistence.LockModeType;
import java.time.Clock;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Settles an IN_PROGRESS payment from what the gateway reports, whoever brings the report: the
 * gateway's callback or the reconciliation job. One transaction: the payment changes, {@link
 * PaymentOutcomes} is told once, and the caller's own bookkeeping is written. The payment row is
 * locked first, before anything the outcome touches (its subscription, its invoice), as the charge's
 * own settlement does: one lock order, so the two never deadlock, and the second of two racing
 * reports waits, then finds the payment settled and changes nothing (counted, logged at DEBUG). Its
 * version stays the backstop.
 *
 * <p>A DONE report whose amount is not the payment's is never taken as a success: the payment FAILS
 * with the difference in its failure message and a WARN (the gateway took money we did not ask for).
 * A DONE report for a payment already FAILED is a WARN too: money was taken for an attempt we gave up
 * on. Both, and every payment failed without the gateway's word, are watched as {@link StrayCharges}
 * in the same transaction, and the money is given back.
 */
@ApplicationScoped
public class PaymentSettlement {

    /** Who brought the report. */
    public enum Source {
        CALLBACK, RECONCILIATION
    }

    public enum Result {
        SUCCEEDED, FAILED, AMOUNT_MISMATCH,
        /** The gateway has no result yet: nothing changed. */
        PENDING,
        /** An attempt kept to be sent again that charged nothing and whose renewal will not send it: removed, its step put back in line. */
        ROLLED_BACK,
        /** Settled before, by the other path or an earlier report. */
        ALREADY_SETTLED,
        /** Another transaction settled it between our read and our commit (optimistic lock). */
        LOST_RACE,
        /** No payment has this payment key or order id. */
        NO_SUCH_PAYMENT,
        /** The payment is bound to another gateway payment than the one reported. */
        OTHER_PAYMENT,
        UNKNOWN_STATUS;

        private static final Set<Result> CHANGES = EnumSet.of(SUCCEEDED, FAILED, AMOUNT_MISMATCH, ROLLED_BACK);

        public boolean changedPayment() {
            return CHANGES.contains(this);
        }
    }

    private static final Logger LOG = Logger.getLogger(PaymentSettlement.class);

    /**
     * Looked up when a payment settles rather than injected directly: the implementation belongs to
     * the subscriptions, and this package must build and start without it.
     */
    private final Instance<PaymentOutcomes> outcomes;
    private final PaymentMetrics metrics;
    private final StrayCharges strays;
    private final Clock clock;

    PaymentSettlement(Instance<PaymentOutcomes> outcomes, PaymentMetrics metrics, StrayCharges strays, Clock clock) {
        this.outcomes = outcomes;
        this.metrics = metrics;
        this.strays = strays;
        this.clock = clock;
    }

    /**
     * Applies a report to the payment with its payment key or, when no payment has the key yet (the
     * callback came before the charge's answer was stored, or the answer never came), with its order
     * id. {@code inTransaction} runs in the same transaction once the result is known.
     */
    public Uni<Result> apply(GatewayReport report, Source source, Function<Result, Uni<Void>> inTransaction) {
        Supplier<Uni<Payment>> find = () -> Payment.<Payment>find("externalPaymentKey", report.paymentKey())
                .withLock(LockModeType.PESSIMISTIC_WRITE).firstResult()
                .chain(byKey -> byKey != null || report.orderId() == null ? Uni.createFrom().item(byKey)
                        : Payment.<Payment>find("orderId", report.orderId()).withLock(LockModeType.PESSIMISTIC_WRITE).firstResult());
        return settle(find, report, payment -> decide(payment, report), source, inTransaction)
                .invoke(result -> LOG.debugf("gateway report %s %s (order %s) via %s: %s", report.paymentKey(), report.status(),
                        report.orderId(), source, result));
    }

    /** Applies a report the reconciliation job asked for about the payment {@code paymentId}. */
    public Uni<Result> apply(UUID paymentId, GatewayReport report, Source source) {
        return settle(() -> Payment.findById(paymentId, LockModeType.PESSIMISTIC_WRITE), report, payment -> decide(payment, report), source, result -> Uni.createFrom().voidItem())
                .invoke(result -> LOG.debugf("payment %s, gateway report %s %s via %s: %s", paymentId, report.paymentKey(),
                        report.status(), source, result));
    }

    /** Fails a payment the gateway cannot confirm: it never received the charge, or the charge stayed pending too long. */
    public Uni<Result> failUnconfirmed(UUID paymentId, String reason, Source source) {
        return settle(() -> Payment.findById(paymentId, LockModeType.PESSIMISTIC_WRITE), null, payment -> {
            payment.fail(null, reason, clock.instant());
            return Result.FAILED;
        }, source, result -> Uni.createFrom().voidItem())
                .invoke(result -> LOG.debugf("payment %s unconfirmed (%s) via %s: %s", paymentId, reason, source, result));
    }

    private Uni<Result> settle(Supplier<Uni<Payment>> find, GatewayReport report, Function<Payment, Result> decide, Source source,
            Function<Result, Uni<Void>> inTransaction) {
        return Panache.withTransaction(() -> find.get().chain(payment -> {
                    Result result = payment == null ? Result.NO_SUCH_PAYMENT : payment.settled() ? alreadySettled(payment, report) : decide.apply(payment);
                    return consequences(payment, report, result).chain(() -> inTransaction.apply(result)).replaceWith(result);
                }))
                // the server rolled the whole transaction back (a serialization failure): nothing was written, run again
                .onFailure(StorageFaults::rolledBackByServer).retry().atMost(3)
                .onFailure(StorageFaults::lostRace).recoverWithItem(Result.LOST_RACE)
                .invoke(result -> {
                    metrics.settled(result, source);
                    if (result == Result.NO_SUCH_PAYMENT && report != null && report.verdict() == GatewayReport.Verdict.PAID) {
                        // an attempt rolled back as never charged whose charge the gateway reports after all: nothing here
                        // watches that money, so an operator gives it back (alert ChargeWithoutPayment)
                        metrics.unmatchedCharge();
                        LOG.warnf("the gateway reports gateway payment %s DONE for %d (order %s), which is none of billing's payments: "
                                + "the money is to be given back by hand", report.paymentKey(), report.amount(), report.orderId());
                    }
                });
    }

    /**
     * Applies the gateway's answer to the charge itself (a DONE with the amount it took) to {@code payment}, locked
     * by the caller in the caller's transaction, as a report of the callback or the reconciliation would be: an
     * amount that is not the payment's fails it, and the money is to be given back.
     */
    public Uni<Result> applyChargeAnswer(Payment payment, GatewayReport report) {
        Result result = payment.settled() ? alreadySettled(payment, report) : decide(payment, report);
        return consequences(payment, report, result).replaceWith(result);
    }

    /** Tells the subscriptions once, and watches the money the gateway may hold for a payment that FAILED here. */
    private Uni<Void> consequences(Payment payment, GatewayReport report, Result result) {
        Instant at = clock.instant();
        Uni<Void> told = switch (result) {
            case SUCCEEDED -> outcomes.get().succeeded(payment, at);
            case FAILED, AMOUNT_MISMATCH -> outcomes.get().failed(payment, at);
            default -> Uni.createFrom().voidItem();
        };
        return told.chain(() -> watchIfStray(payment, report, result, at));
    }

    private static Result alreadySettled(Payment payment, GatewayReport report) {
        if (paidAfterFailing(payment, report)) {
            LOG.warnf("payment %s FAILED, yet the gateway reports gateway payment %s DONE for %d: the charge is to be given back", payment.id,
                    report.paymentKey(), report.amount());
        }
        return Result.ALREADY_SETTLED;
    }

    private static boolean paidAfterFailing(Payment payment, GatewayReport report) {
        return report != null && payment.status == PaymentStatus.FAILED && report.verdict() == GatewayReport.Verdict.PAID
                && (payment.externalPaymentKey == null || payment.externalPaymentKey.equals(report.paymentKey()));
    }

    /**
     * A payment the gateway may hold money for although it FAILED here: it charged another amount, it
     * reports DONE after the payment failed, or the payment failed without its word (a report of ABORTED,
     * CANCELED or EXPIRED is its word that nothing was taken).
     */
    private Uni<Void> watchIfStray(Payment payment, GatewayReport report, Result result, Instant at) {
        if (result == Result.AMOUNT_MISMATCH || result == Result.FAILED && report == null) {
            return strays.watch(payment, payment.externalPaymentKey, payment.failureMessage, at);
        }
        if (result == Result.ALREADY_SETTLED && paidAfterFailing(payment, report)) {
            return strays.watch(payment, report.paymentKey(), "the gateway reports DONE for " + report.amount() + " after the payment FAILED ("
                    + payment.failureMessage + ")", at);
        }
        return Uni.createFrom().voidItem();
    }

    /** Changes the IN_PROGRESS {@code payment} as the report says, and says how. */
    private Result decide(Payment payment, GatewayReport report) {
        if (payment.externalPaymentKey != null && !payment.externalPaymentKey.equals(report.paymentKey())) {
            LOG.warnf("payment %s is bound to gateway payment %s, but a report names %s for its order %s: not applied", payment.id,
                    payment.externalPaymentKey, report.paymentKey(), payment.orderId);
            return Result.OTHER_PAYMENT;
        }
        Instant at = clock.instant();
        return switch (report.verdict()) {
            case PAID -> {
                if (report.amount() == payment.amount) {
                    payment.succeed(report.paymentKey(), report.amount(), at);
                    yield Result.SUCCEEDED;
                }
                LOG.warnf("payment %s: the gateway charged %d for gateway payment %s, %d was asked; failed, the charge is to be given back",
                        payment.id, report.amount(), report.paymentKey(), payment.amount);
                payment.fail(report.paymentKey(), "AMOUNT_MISMATCH: the gateway charged " + report.amount() + ", " + payment.amount + " was asked", at);
                yield Result.AMOUNT_MISMATCH;
            }
            case NOT_PAID -> {
                payment.fail(report.paymentKey(), "the gateway reports " + report.status(), at);
                yield Result.FAILED;
            }
            case PENDING -> Result.PENDING;
            case UNKNOWN -> {
                LOG.warnf("payment %s: the gateway reports a status this service does not know (%s); left IN_PROGRESS", payment.id,
                        report.status());
                yield Result.UNKNOWN_STATUS;
            }
        };
    }
}
