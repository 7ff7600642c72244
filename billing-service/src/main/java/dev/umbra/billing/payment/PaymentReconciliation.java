package dev.umbra.billing.payment;

import dev.umbra.billing.gateway.GatewayGuard;
import dev.umbra.billing.gateway.GatewayGuards;
import dev.umbra.billing.gateway.PaymentGatewayClient;
import dev.umbra.billing.gateway.PaymentGatewayClient.GatewayPayment;
import dev.umbra.billing.payment.PaymentSettlement.Result;
import dev.umbra.billing.payment.PaymentSettlement.Source;
import dev.umbra.platform.storage.Statements;
import dev.umbra.platform.storage.StorageFaults;
import dev.umbra.platform.workqueue.PagedRun;
import dev.umbra.platform.workqueue.WorkQueue;
import dev.umbra.platform.workqueue.WorkQueues;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * Settles the payments no callback settled: every {@code billing.reconciliation.interval}, the
 * IN_PROGRESS payments older than {@code settle-after}, oldest first, are looked up at the gateway —
 * by payment key when it is known, else by order id (matching the amount) — and settled one per
 * transaction through {@link PaymentSettlement}. A payment the gateway has never heard of fails (the
 * charge never arrived), unless it is a renewal's attempt that its renewal sends again as stored ({@link KeptAttempts}: left
 * for the renewal's next try, or rolled back when none is to come); one it still reports pending waits for the next run, until
 * {@code pending-window} after its attempt, and then fails.
 *
 * <p>Runs are one item of the {@value #QUEUE} work queue, leased by one replica at a time and put back
 * in line for the next run by each run. A run that outlives its lease may overlap another replica's:
 * harmless, since every settlement is guarded by the payment's version.
 *
 * <p>Pages: always the first page of IN_PROGRESS payments minus the ids already tried in this run, so
 * that settling payments (which leave the set) never makes a page skip one, and a payment left pending
 * is tried once per run.
 */
@ApplicationScoped
public class PaymentReconciliation extends GatewayJob {

    static final String QUEUE = "payment-reconciliation";

    private static final Logger LOG = Logger.getLogger(PaymentReconciliation.class);

    private static final String PAGE = """
            select id, order_id, external_payment_key, amount, attempted_at, subscription_id, period, purpose from payment
            where status = 'IN_PROGRESS' and attempted_at <= $1 and id <> all($2)
            order by created_at, id
            limit $3""";
    private static final String OLDEST = "select min(attempted_at) as oldest from payment where status = 'IN_PROGRESS'";

    private record Candidate(UUID id, String orderId, String paymentKey, long amount, Instant attemptedAt, UUID subscriptionId, int period,
            String purpose) {
    }

    private final Pool pool;
    private final PaymentGatewayClient gateway;
    private final PaymentSettlement settlement;
    private final PaymentMetrics metrics;
    private final WorkQueue queue;
    private final KeptAttempts kept;

    PaymentReconciliation(Pool pool, PaymentGatewayClient gateway, PaymentSettlement settlement, PaymentMetrics metrics,
            ReconciliationSettings settings, @Identifier(GatewayGuards.QUERY) GatewayGuard lookups, Clock clock, WorkQueues queues,
            KeptAttempts kept) {
        super(QUEUE, lookups, settings, clock);
        this.pool = pool;
        this.gateway = gateway;
        this.settlement = settlement;
        this.metrics = metrics;
        this.queue = queues.queue(QUEUE);
        this.kept = kept;
    }

    /** One round of the work queue by hand: claims the run item if it is due and no other replica holds it; returns 1 if it ran. */
    public Uni<Integer> runOnce() {
        return queue.runOnce(this);
    }

    @Override
    public Uni<PagedRun.Summary<Result>> run() {
        OffsetDateTime settleBefore = utc(clock.instant().minus(settings.settleAfter()));
        int[] examined = {0};
        return over(Result.class, page(pool, PAGE, row -> new Candidate(row.getUUID("id"), row.getString("order_id"), row.getString("external_payment_key"),
                                row.getLong("amount"), row.getOffsetDateTime("attempted_at").toInstant(), row.getUUID("subscription_id"),
                                row.getInteger("period"), row.getString("purpose")), settleBefore)
                        .andThen(candidates -> candidates.invoke(read -> examined[0] += read.size())), Candidate::id, this::reconcile)
                .chain(run -> Statements.execute(pool, OLDEST).map(rows -> {
                    OffsetDateTime oldest = rows.iterator().next().getOffsetDateTime("oldest");
                    metrics.oldestInProgress(oldest == null ? null : oldest.toInstant());
                    log(run, oldest);
                    metrics.reconciliationRun(true);
                    return run;
                }))
                .onFailure().invoke(error -> {
                    metrics.reconciliationRun(false);
                    // the database away or busy is reported by the storage guards and the failed-runs metric; a run it cut short is routine
                    if (StorageFaults.isTransient(error)) {
                        LOG.infof("payment reconciliation: run cut short after %d payments, the next run carries on: %s", examined[0], error.toString());
                    } else {
                        LOG.warnf("payment reconciliation: run failed after %d payments, the next run carries on: %s", examined[0], error.toString());
                    }
                });
    }

    private Uni<Result> reconcile(Candidate payment) {
        Uni<List<GatewayPayment>> found = payment.paymentKey() != null
                ? gateway.find(payment.paymentKey()).map(one -> one.map(List::of).orElse(List.of()))
                : gateway.listByOrder(payment.orderId());
        return found.chain(reports -> {
            if (reports.isEmpty()) {
                if (!Payment.PERIOD.equals(payment.purpose()) || payment.period() == 0) {
                    return neverArrived(payment);
                }
                return kept.noTraceAtGateway(payment.id(), payment.subscriptionId(), payment.period()).chain(fate -> switch (fate) {
                    case TO_BE_SENT_AGAIN -> settledAs(Result.PENDING);
                    case ROLLED_BACK -> settledAs(Result.ROLLED_BACK);
                    case NOT_KEPT -> neverArrived(payment);
                });
            }
            GatewayReport report = GatewayReport.of(bestMatch(reports, payment.amount()));
            if (report.verdict() == GatewayReport.Verdict.PENDING) {
                if (clock.instant().isAfter(payment.attemptedAt().plus(settings.pendingWindow()))) {
                    return settlement.failUnconfirmed(payment.id(), "still pending at the gateway " + settings.pendingWindow()
                            + " after the attempt", Source.RECONCILIATION);
                }
                return settledAs(Result.PENDING);
            }
            return settlement.apply(payment.id(), report, Source.RECONCILIATION);
        });
    }

    private Uni<Result> neverArrived(Candidate payment) {
        return settlement.failUnconfirmed(payment.id(), "the gateway has no payment for this attempt: the charge never arrived", Source.RECONCILIATION);
    }

    private Uni<Result> settledAs(Result result) {
        metrics.settled(result, Source.RECONCILIATION);
        return Uni.createFrom().item(result);
    }

    /** Of an order's gateway payments: a DONE one of the asked amount, else any DONE one (a mismatch), else a pending one, else any. */
    private static GatewayPayment bestMatch(List<GatewayPayment> reports, long amount) {
        return reports.stream().min(Comparator.comparingInt(p -> {
            GatewayReport.Verdict verdict = GatewayReport.of(p).verdict();
            if (verdict == GatewayReport.Verdict.PAID) {
                return p.amount() == amount ? 0 : 1;
            }
            return verdict == GatewayReport.Verdict.PENDING ? 2 : 3;
        })).orElseThrow();
    }

    private static void log(PagedRun.Summary<Result> summary, OffsetDateTime oldest) {
        if (summary.examined() == 0) {
            LOG.debugf("payment reconciliation: nothing to reconcile; oldest IN_PROGRESS attempted at %s", oldest);
            return;
        }
        LOG.infof("payment reconciliation: %d payment(s) examined: %d succeeded, %d failed (%d amount mismatch), %d left pending, "
                        + "%d rolled back (never charged, their renewal's step put back in line), %d found settled, %d lost the race to a callback or another run, "
                        + "%d not reachable; oldest IN_PROGRESS attempted at %s",
                summary.examined(), summary.count(Result.SUCCEEDED), summary.count(Result.FAILED) + summary.count(Result.AMOUNT_MISMATCH),
                summary.count(Result.AMOUNT_MISMATCH), summary.count(Result.PENDING), summary.count(Result.ROLLED_BACK),
                summary.count(Result.ALREADY_SETTLED), summary.count(Result.LOST_RACE), summary.unreachable(), oldest == null ? "(none left)" : oldest);
    }

    private static OffsetDateTime utc(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }
}
