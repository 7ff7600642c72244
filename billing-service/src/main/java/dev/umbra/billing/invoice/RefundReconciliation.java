package dev.umbra.billing.invoice;

import dev.umbra.billing.gateway.GatewayGuard;
import dev.umbra.billing.gateway.GatewayGuards;
import dev.umbra.billing.gateway.PaymentGatewayClient;
import dev.umbra.billing.gateway.PaymentGatewayClient.GatewayCancel;
import dev.umbra.billing.payment.GatewayJob;
import dev.umbra.billing.payment.ReconciliationSettings;
import dev.umbra.platform.workqueue.PagedRun;
import io.quarkus.hibernate.reactive.panache.common.WithTransaction;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Settles the refunds whose cancel got no usable answer (no answer in time, a reset): every
 * {@code billing.reconciliation.interval}, the IN_PROGRESS refunds older than {@code settle-after} are
 * looked up at the gateway by their payment's key, and the payment's cancels searched for the refund's
 * idempotency key. Found → SUCCEEDED (with its event, invoice status and ledger entry); the payment has
 * no such cancel → FAILED (the cancel never arrived), its reservation freed. A cancel is never sent
 * again from here. A look-up that fails leaves the refund for the next run. A refund failed so is watched
 * ({@link LateRefunds}): the gateway may yet execute the cancel it did not list.
 *
 * <p>Runs are the one item of work queue {@value #QUEUE}, paged by {@link PagedRun}. Each refund is
 * settled in a transaction with its row locked, so a run and the request that is applying its own
 * answer never both settle it.
 */
@ApplicationScoped
public class RefundReconciliation extends GatewayJob {

    static final String QUEUE = "refund-reconciliation";

    public enum Result {
        SUCCEEDED, FAILED, ALREADY_SETTLED
    }

    private record Candidate(UUID id, String paymentKey) {
    }

    private static final Logger LOG = Logger.getLogger(RefundReconciliation.class);

    private static final String PAGE = """
            select r.id, p.external_payment_key from refund r
            join invoice i on i.id = r.invoice_id
            join payment p on p.id = i.payment_id
            where r.status = 'IN_PROGRESS' and r.attempted_at <= $1 and r.id <> all($2)
            order by r.created_at, r.id
            limit $3""";

    private final Pool pool;
    private final PaymentGatewayClient gateway;
    private final Refunds refunds;
    private final RefundMetrics metrics;

    RefundReconciliation(Pool pool, PaymentGatewayClient gateway, Refunds refunds, ReconciliationSettings settings,
            @Identifier(GatewayGuards.QUERY) GatewayGuard lookups, RefundMetrics metrics, Clock clock) {
        super(QUEUE, lookups, settings, clock);
        this.pool = pool;
        this.gateway = gateway;
        this.refunds = refunds;
        this.metrics = metrics;
    }

    @Override
    public Uni<PagedRun.Summary<Result>> run() {
        OffsetDateTime settleBefore = clock.instant().minus(settings.settleAfter()).atOffset(ZoneOffset.UTC);
        return over(Result.class, page(pool, PAGE, row -> new Candidate(row.getUUID("id"), row.getString("external_payment_key")), settleBefore), Candidate::id, this::reconcile).map(summary -> {
                    if (summary.examined() > 0) {
                        LOG.infof("refund reconciliation: %d refund(s) examined: %d succeeded, %d failed (the cancel never arrived), "
                                        + "%d found settled, %d not reachable", summary.examined(), summary.count(Result.SUCCEEDED),
                                summary.count(Result.FAILED), summary.count(Result.ALREADY_SETTLED), summary.unreachable());
                    }
                    return summary;
                });
    }

    private Uni<Result> reconcile(Candidate refund) {
        return gateway.find(refund.paymentKey())
                .map(payment -> payment.flatMap(found -> found.cancelOf(Refund.gatewayKey(refund.id()))))
                .chain(cancel -> settle(refund.id(), refund.paymentKey(), cancel))
                .invoke(result -> {
                    if (result != Result.ALREADY_SETTLED) {
                        metrics.counted(RefundMetrics.Trigger.OPERATOR,
                                result == Result.SUCCEEDED ? RefundMetrics.Outcome.SUCCEEDED : RefundMetrics.Outcome.FAILED);
                    }
                    if (result == Result.FAILED) {
                        metrics.watch(RefundWatchStatus.WATCHING);
                    }
                });
    }

    /**
     * Absent means absent only so far: the gateway may still execute a cancel it has not listed yet (it was
     * slow, not lost), so the refund FAILED here is watched by {@link LateRefunds}, in this transaction.
     */
    @WithTransaction
    Uni<Result> settle(UUID refundId, String paymentKey, Optional<GatewayCancel> cancel) {
        Instant now = clock.instant();
        return Refund.lockById(refundId).chain(refund -> {
            if (refund == null || refund.settled()) {
                return Uni.createFrom().item(Result.ALREADY_SETTLED);
            }
            if (cancel.isPresent()) {
                return refunds.succeed(refund, cancel.get().transactionKey(), now).replaceWith(Result.SUCCEEDED);
            }
            return refunds.fail(refund, "the gateway has no cancel for this refund: it never arrived", now)
                    .chain(() -> RefundWatch.of(refund, paymentKey, now, settings.interval(), settings.strayWatch()).persist())
                    .replaceWith(Result.FAILED);
        });
    }
}
