package dev.umbra.billing.payment;

import dev.umbra.billing.gateway.CancelOutcome;
import dev.umbra.billing.gateway.GatewayGuard;
import dev.umbra.billing.gateway.GatewayGuards;
import dev.umbra.billing.gateway.PaymentGatewayClient;
import dev.umbra.billing.gateway.PaymentGatewayClient.GatewayCancel;
import dev.umbra.billing.gateway.PaymentGatewayClient.GatewayPayment;
import dev.umbra.billing.plan.PlanCatalogue;
import dev.umbra.events.billing.StrayChargeReturned;
import dev.umbra.platform.outbox.OutboxWriter;
import dev.umbra.platform.workqueue.PagedRun;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Gives back what the gateway took for payments that FAILED here ({@link StrayCharges}). Every
 * {@code billing.reconciliation.interval}, each watched charge whose next look is due is looked up at
 * the gateway (by payment key, else by order id), and:
 * <ul>
 * <li>a cancel with the charge's own idempotency key is there → RETURNED (an earlier cancel of ours
 * arrived though its answer did not);</li>
 * <li>a payment the gateway took (DONE, or partly canceled by others) → the rest of it is cancelled with
 * that key: given back → RETURNED; refused → REFUSED and a WARN (an operator must act); no usable answer
 * → still WATCHING, and the next look finds the cancel if it arrived (the key makes a cancel sent again
 * the same cancel: the money is never given back twice);</li>
 * <li>still pending → looked at again, ever less often, until the watch ends → UNRESOLVED and a WARN;</li>
 * <li>nothing taken (not found, ABORTED, CANCELED, EXPIRED, or given back by other cancels) → looked at
 * again until the watch ends, then NOTHING_TAKEN (a charge the gateway had not received when we gave up
 * could still arrive; a payment it already has is final once not paid).</li>
 * </ul>
 * The money never entered the ledger (the payment FAILED), so giving it back books nothing; a
 * StrayChargeReturned event, in the transaction that records it RETURNED, is its trace in the audit log.
 *
 * <p>Runs are the one item of work queue {@value #QUEUE}; each charge is settled in its own transaction
 * with its row locked, so two replicas whose runs overlap change it once.
 */
@ApplicationScoped
public class StrayChargeReturns extends GatewayJob {

    static final String QUEUE = "stray-charge-returns";

    public enum Result {
        RETURNED, NOTHING_TAKEN, REFUSED, UNRESOLVED, STILL_WATCHING, ALREADY_SETTLED
    }

    /** What a look at the gateway found and, when a cancel was sent, its answer. */
    private record Finding(List<GatewayPayment> payments, Optional<CancelOutcome> cancel, GatewayPayment canceled) {
    }

    private record Candidate(UUID id, String orderId, String paymentKey) {
    }

    /** What a look came to, and the watched charge as its transaction left it. */
    private record Settled(Result result, StrayCharge stray) {
    }

    private static final Logger LOG = Logger.getLogger(StrayChargeReturns.class);

    private static final String PAGE = """
            select id, order_id, payment_key from stray_charge
            where status = 'WATCHING' and next_look_at <= $1 and id <> all($2)
            order by next_look_at, id
            limit $3""";

    private final Pool pool;
    private final PaymentGatewayClient gateway;
    private final StrayCharges strays;
    private final OutboxWriter outbox;

    StrayChargeReturns(Pool pool, PaymentGatewayClient gateway, StrayCharges strays, ReconciliationSettings settings,
            @Identifier(GatewayGuards.QUERY) GatewayGuard lookups, OutboxWriter outbox, Clock clock) {
        super(QUEUE, lookups, settings, clock);
        this.pool = pool;
        this.gateway = gateway;
        this.strays = strays;
        this.outbox = outbox;
    }

    @Override
    public Uni<PagedRun.Summary<Result>> run() {
        OffsetDateTime started = clock.instant().atOffset(ZoneOffset.UTC);
        return over(Result.class, page(pool, PAGE, row -> new Candidate(row.getUUID("id"), row.getString("order_id"), row.getString("payment_key")), started), Candidate::id, this::look).map(summary -> {
                    if (summary.count(Result.RETURNED) + summary.count(Result.NOTHING_TAKEN) + summary.count(Result.REFUSED)
                            + summary.count(Result.UNRESOLVED) > 0) {
                        LOG.infof("stray charges: %d looked at: %d given back, %d nothing taken, %d refused, %d unresolved, %d still watched, "
                                        + "%d not reachable", summary.examined(), summary.count(Result.RETURNED), summary.count(Result.NOTHING_TAKEN),
                                summary.count(Result.REFUSED), summary.count(Result.UNRESOLVED), summary.count(Result.STILL_WATCHING),
                                summary.unreachable());
                    }
                    return summary;
                });
    }

    private Uni<Result> look(Candidate stray) {
        Uni<List<GatewayPayment>> found = stray.paymentKey() != null
                ? gateway.find(stray.paymentKey()).map(one -> one.map(List::of).orElse(List.of()))
                : gateway.listByOrder(stray.orderId());
        String key = StrayCharge.returnKey(stray.id());
        return found.chain(payments -> {
            if (payments.stream().anyMatch(p -> p.cancelOf(key).isPresent())) {
                return settle(stray.id(), new Finding(payments, Optional.empty(), null));
            }
            Optional<GatewayPayment> taken = payments.stream().filter(p -> kept(p) > 0).findFirst();
            if (taken.isEmpty()) {
                return settle(stray.id(), new Finding(payments, Optional.empty(), null));
            }
            GatewayPayment payment = taken.get();
            return gateway.cancel(payment.paymentKey(), kept(payment), "payment failed on our side: the charge is given back", key)
                    .chain(outcome -> outcome instanceof CancelOutcome.Rejected || outcome instanceof CancelOutcome.Uncertain
                            ? lookAgain(payments, payment, key, outcome) : Uni.createFrom().item(new Finding(payments, Optional.of(outcome), payment)))
                    .chain(finding -> settle(stray.id(), finding));
        }).map(this::reported);
    }

    /**
     * A refusal of a cancel sent again (a first one that arrived late, an overlapping run's at the same time), or an answer
     * that says nothing sure (a 409 while another request with our key is processed), may hide a cancel that did happen:
     * the payment looked up again shows ours, if it is there.
     */
    private Uni<Finding> lookAgain(List<GatewayPayment> payments, GatewayPayment payment, String key, CancelOutcome outcome) {
        Finding asAnswered = new Finding(payments, Optional.of(outcome), payment);
        return gateway.find(payment.paymentKey()).map(again -> again.isPresent() && again.get().cancelOf(key).isPresent()
                        ? new Finding(List.of(again.get()), Optional.empty(), null) : asAnswered)
                // not known either way, a refusal included (it may hide a cancel carried out): still watched, the next look tells
                .onFailure().recoverWithItem(new Finding(payments,
                        Optional.of(new CancelOutcome.Uncertain("no usable answer, and the look-up that could show our cancel failed")), payment));
    }

    /** After the commit: the metric of how the watch ended, and a WARN where an operator must act. */
    private Result reported(Settled settled) {
        StrayCharge stray = settled.stray();
        switch (settled.result()) {
            case RETURNED -> strays.resolved(StrayChargeStatus.RETURNED);
            case NOTHING_TAKEN -> strays.resolved(StrayChargeStatus.NOTHING_TAKEN);
            case REFUSED -> {
                strays.resolved(StrayChargeStatus.REFUSED);
                LOG.warnf("stray charge %s of payment %s: the gateway refused to give back gateway payment %s (%s); an operator must "
                        + "return it by hand", stray.id, stray.paymentId, stray.paymentKey, stray.detail);
            }
            case UNRESOLVED -> {
                strays.resolved(StrayChargeStatus.UNRESOLVED);
                LOG.warnf("stray charge %s of payment %s: still pending at the gateway when its watch ended (%s); an operator must look",
                        stray.id, stray.paymentId, stray.detail);
            }
            default -> {
            }
        }
        return settled.result();
    }

    /** What the gateway still holds of {@code payment}: all of a DONE one, the rest of a partly canceled one, else nothing. */
    private static long kept(GatewayPayment payment) {
        if (!"DONE".equals(payment.status()) && !"PARTIAL_CANCELED".equals(payment.status())) {
            return 0;
        }
        return payment.amount() - payment.cancels().stream().mapToLong(GatewayCancel::amount).sum();
    }

    @WithTransaction
    Uni<Settled> settle(UUID strayId, Finding finding) {
        Instant now = clock.instant();
        return StrayCharge.lockById(strayId).chain(stray -> {
            if (stray == null || !stray.watching()) {
                return Uni.createFrom().item(new Settled(Result.ALREADY_SETTLED, stray));
            }
            Result result = decide(stray, finding, now);
            if (result == Result.RETURNED) {
                return Payment.<Payment>findById(stray.paymentId).chain(payment -> outbox.publish(new StrayChargeReturned(
                        payment.subscriptionId, payment.id, stray.id, BigDecimal.valueOf(stray.returnedAmount), PlanCatalogue.KRW), now))
                        .replaceWith(new Settled(result, stray));
            }
            return Uni.createFrom().item(new Settled(result, stray));
        });
    }

    private Result decide(StrayCharge stray, Finding finding, Instant now) {
        String key = stray.returnKey();
        for (GatewayPayment payment : finding.payments()) {
            Optional<GatewayCancel> ours = payment.cancelOf(key);
            if (ours.isPresent()) {
                stray.paymentKey = payment.paymentKey();
                stray.returned(ours.get().amount(), ours.get().transactionKey(), now);
                return Result.RETURNED;
            }
        }
        if (finding.cancel().isPresent()) {
            stray.paymentKey = finding.canceled().paymentKey();
            CancelOutcome outcome = finding.cancel().get();
            if (outcome instanceof CancelOutcome.Canceled canceled) {
                stray.returned(kept(finding.canceled()), canceled.transactionKey(), now);
                return Result.RETURNED;
            }
            if (outcome instanceof CancelOutcome.Rejected rejected) {
                stray.resolve(StrayChargeStatus.REFUSED, "cancel refused: " + rejected.httpStatus() + " " + rejected.code() + " " + rejected.message(),
                        now);
                return Result.REFUSED;
            }
            stray.lookAgain("cancel sent, no usable answer: " + outcome, now, settings.interval(), settings.strayLookMax());
            return Result.STILL_WATCHING;
        }
        boolean pending = finding.payments().stream().anyMatch(p -> GatewayReport.of(p).verdict() == GatewayReport.Verdict.PENDING);
        String found = finding.payments().isEmpty() ? "the gateway has no payment for it"
                : "the gateway reports " + finding.payments().stream().map(p -> p.paymentKey() + " " + p.status()).toList();
        if (now.isBefore(stray.watchUntil)) {
            stray.lookAgain(found, now, settings.interval(), settings.strayLookMax());
            return Result.STILL_WATCHING;
        }
        if (pending) {
            stray.resolve(StrayChargeStatus.UNRESOLVED, found, now);
            return Result.UNRESOLVED;
        }
        stray.resolve(StrayChargeStatus.NOTHING_TAKEN, found, now);
        return Result.NOTHING_TAKEN;
    }
}
