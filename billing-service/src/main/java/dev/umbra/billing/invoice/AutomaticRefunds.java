package dev.umbra.billing.invoice;

import dev.umbra.billing.gateway.CancelOutcome;
import dev.umbra.billing.gateway.GatewayGuard;
import dev.umbra.billing.gateway.GatewayGuards;
import dev.umbra.billing.gateway.PaymentGatewayClient;
import dev.umbra.billing.gateway.PaymentGatewayClient.GatewayCancel;
import dev.umbra.billing.gateway.PaymentGatewayClient.GatewayPayment;
import dev.umbra.billing.payment.GatewayJob;
import dev.umbra.billing.payment.ReconciliationSettings;
import dev.umbra.platform.storage.Statements;
import dev.umbra.platform.workqueue.PagedRun;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Gives back the charges a subscription could not use ({@link Refunds#scheduleFull}): every
 * {@code billing.reconciliation.interval}, each SCHEDULED refund is first looked up at the gateway — the
 * payment's cancels searched for the refund's own idempotency key — and only when none is there is the
 * cancel sent, with that key. Found or given back → SUCCEEDED (RefundSucceeded, the invoice's status,
 * the ledger's REFUND entry); refused while the gateway lists no cancel of ours → FAILED, a WARN and the
 * reservation freed (an operator must act); a 409, not sent or no usable answer → still SCHEDULED for
 * the next run, whose look-up finds a cancel that arrived before anything is sent again (and the key
 * makes a cancel sent twice one cancel). A payment whose key the gateway never told is found by its order
 * id. Each run reports the age of the oldest SCHEDULED refund.
 *
 * <p>Runs are the one item of work queue {@value #QUEUE}; each refund is settled in its own transaction
 * with its row locked, so two replicas whose runs overlap settle it once.
 */
@ApplicationScoped
public class AutomaticRefunds extends GatewayJob {

    static final String QUEUE = "automatic-refunds";

    public enum Result {
        SUCCEEDED, FAILED, STILL_SCHEDULED, ALREADY_SETTLED
    }

    private record Candidate(UUID id, UUID invoiceId, String paymentKey, String orderId, long amount, String reason) {
    }

    /** The gateway's payment key (null when it was not found) and what giving back came to. */
    private record Attempt(String paymentKey, CancelOutcome outcome) {
    }

    private static final Logger LOG = Logger.getLogger(AutomaticRefunds.class);

    private static final String PAGE = """
            select r.id, r.invoice_id, r.amount, r.reason, p.external_payment_key, p.order_id from refund r
            join invoice i on i.id = r.invoice_id
            join payment p on p.id = i.payment_id
            where r.status = 'SCHEDULED' and r.id <> all($1)
            order by r.created_at, r.id
            limit $2""";
    private static final String OLDEST = "select min(created_at) as oldest from refund where status = 'SCHEDULED'";

    private final Pool pool;
    private final PaymentGatewayClient gateway;
    private final Refunds refunds;
    private final RefundMetrics metrics;

    AutomaticRefunds(Pool pool, PaymentGatewayClient gateway, Refunds refunds, ReconciliationSettings settings,
            @Identifier(GatewayGuards.QUERY) GatewayGuard lookups, RefundMetrics metrics, Clock clock) {
        super(QUEUE, lookups, settings, clock);
        this.pool = pool;
        this.gateway = gateway;
        this.refunds = refunds;
        this.metrics = metrics;
    }

    @Override
    public Uni<PagedRun.Summary<Result>> run() {
        return over(Result.class, page(pool, PAGE, row -> new Candidate(row.getUUID("id"), row.getUUID("invoice_id"), row.getString("external_payment_key"),
                                row.getString("order_id"), row.getLong("amount"), row.getString("reason"))), Candidate::id, this::giveBack)
                .chain(summary -> Statements.execute(pool, OLDEST).map(rows -> {
                    OffsetDateTime oldest = rows.iterator().next().getOffsetDateTime("oldest");
                    metrics.oldestScheduled(oldest == null ? null : oldest.toInstant());
                    if (summary.examined() > 0) {
                        LOG.infof("automatic refunds: %d looked at: %d given back, %d refused, %d to be tried again, %d found settled, "
                                        + "%d not reachable", summary.examined(), summary.count(Result.SUCCEEDED), summary.count(Result.FAILED),
                                summary.count(Result.STILL_SCHEDULED), summary.count(Result.ALREADY_SETTLED), summary.unreachable());
                    }
                    return summary;
                }));
    }

    private Uni<Result> giveBack(Candidate refund) {
        String key = Refund.gatewayKey(refund.id());
        return paymentAtTheGateway(refund).chain(payment -> {
            if (payment.isEmpty()) {
                // the charge was settled DONE, so the gateway has it: a look-up that finds nothing is tried again next run
                return Uni.createFrom().item(new Attempt(null, new CancelOutcome.Uncertain("the gateway lists no payment for the order")));
            }
            String paymentKey = payment.get().paymentKey();
            Optional<GatewayCancel> arrived = payment.get().cancelOf(key);
            if (arrived.isPresent()) {
                return Uni.createFrom().item(new Attempt(paymentKey, new CancelOutcome.Canceled(arrived.get().transactionKey())));
            }
            return gateway.cancel(paymentKey, refund.amount(), refund.reason(), key).chain(outcome -> {
                if (!(outcome instanceof CancelOutcome.Rejected)) {
                    return Uni.createFrom().item(new Attempt(paymentKey, outcome));
                }
                // a refusal of a cancel sent again (a first one that arrived late, a replica's at the same time) may hide a cancel
                // that did happen: only a refusal while the gateway lists no cancel of ours is one
                return gateway.find(paymentKey).map(again -> again.flatMap(found -> found.cancelOf(key))
                        .<CancelOutcome>map(made -> new CancelOutcome.Canceled(made.transactionKey()))
                        .map(made -> new Attempt(paymentKey, made))
                        .orElseGet(() -> new Attempt(paymentKey, outcome)));
            });
        }).chain(attempt -> settle(refund.id(), attempt.outcome()).invoke(result -> report(refund, attempt, result)));
    }

    /**
     * The invoice's payment as the gateway has it: by its key, else (a DONE report that named none) by its order id: the one
     * that carries this refund's cancel (a run before this one sent it and lost the answer: the payment is CANCELED now),
     * else the one that can still be cancelled.
     */
    private Uni<Optional<GatewayPayment>> paymentAtTheGateway(Candidate refund) {
        if (refund.paymentKey() != null) {
            return gateway.find(refund.paymentKey());
        }
        String key = Refund.gatewayKey(refund.id());
        return gateway.listByOrder(refund.orderId()).map(payments -> payments.stream().filter(p -> p.cancelOf(key).isPresent()).findFirst()
                .or(() -> payments.stream().filter(p -> "DONE".equals(p.status()) || "PARTIAL_CANCELED".equals(p.status())).findFirst()));
    }

    /** After the commit: the metric, and what an operator needs to know. */
    private void report(Candidate refund, Attempt attempt, Result result) {
        switch (result) {
            case SUCCEEDED -> {
                metrics.counted(RefundMetrics.Trigger.AUTOMATIC, RefundMetrics.Outcome.SUCCEEDED);
                LOG.infof("automatic refund %s of invoice %s: %d given back (gateway payment %s)", refund.id(), refund.invoiceId(),
                        refund.amount(), attempt.paymentKey());
            }
            case FAILED -> {
                metrics.counted(RefundMetrics.Trigger.AUTOMATIC, RefundMetrics.Outcome.FAILED);
                CancelOutcome.Rejected rejected = (CancelOutcome.Rejected) attempt.outcome();
                LOG.warnf("automatic refund %s of invoice %s: the gateway refused to give back %d (gateway payment %s: %d %s %s); "
                        + "an operator must return it", refund.id(), refund.invoiceId(), refund.amount(), attempt.paymentKey(),
                        rejected.httpStatus(), rejected.code(), rejected.message());
            }
            default -> LOG.debugf("automatic refund %s: not given back yet (%s), tried again next run", refund.id(), attempt.outcome());
        }
    }

    @WithTransaction
    Uni<Result> settle(UUID refundId, CancelOutcome outcome) {
        Instant now = clock.instant();
        return Refund.lockById(refundId).chain(refund -> {
            if (refund == null || refund.status != RefundStatus.SCHEDULED) {
                return Uni.createFrom().item(Result.ALREADY_SETTLED);
            }
            if (outcome instanceof CancelOutcome.Canceled canceled) {
                return refunds.succeed(refund, canceled.transactionKey(), now).replaceWith(Result.SUCCEEDED);
            }
            if (outcome instanceof CancelOutcome.Rejected rejected) {
                return refunds.fail(refund, "refused by the gateway: " + rejected.code() + " " + rejected.message(), now)
                        .replaceWith(Result.FAILED);
            }
            return Uni.createFrom().item(Result.STILL_SCHEDULED);
        });
    }
}
