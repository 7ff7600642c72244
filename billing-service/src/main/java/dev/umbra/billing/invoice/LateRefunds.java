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
 * Watches the refunds failed without the gateway's word ({@link RefundWatch}): {@link RefundReconciliation}'s,
 * whose cancel got no usable answer and settle-after later the gateway listed no cancel with the refund's
 * key (which a gateway slow to execute it would say too), and {@link Refunds}' whose cancel the gateway
 * answered 500 or 429, "nothing done" by its contract only. Every {@code billing.reconciliation.interval},
 * each watched refund whose next look is due is looked up at the gateway by its payment's key, and the
 * payment's cancels searched for the refund's key {@code refund-<id>}:
 * <ul>
 * <li>there → the money went back after all: the refund is recorded SUCCEEDED with the gateway's
 * transaction key, its amount reserved again, RefundSucceeded, the invoice's refunded amount and the
 * ledger's REFUND (occurred at the refund's request, recorded now), and a WARN (an operator who refunded
 * again by hand should know); while refunds in flight hold more of the invoice than is left, it waits for
 * them (the gateway cannot execute them all) and is looked at again one interval later;</li>
 * <li>not there → looked at again, ever less often (from {@code interval}, doubling up to
 * {@code stray-look-max}), until the watch ({@code stray-watch} after the failure, the horizon of the stray
 * charges' watch) ends → NOTHING_ARRIVED, the refund stays FAILED.</li>
 * </ul>
 * Nothing is ever sent to the gateway from here.
 *
 * <p>Runs are the one item of work queue {@value #QUEUE}; each watch is settled in its own transaction
 * with its row (then the refund's, then the invoice's) locked, so two replicas whose runs overlap record a
 * late cancel once: the second finds the watch ended.
 */
@ApplicationScoped
public class LateRefunds extends GatewayJob {

    static final String QUEUE = "late-refunds";

    public enum Result {
        RECORDED, NOTHING_ARRIVED, STILL_WATCHING, WAITING_FOR_ROOM, ALREADY_SETTLED
    }

    private record Candidate(UUID refundId, String paymentKey) {
    }

    /** What a look came to, and the refund as its transaction left it (null when there was none). */
    private record Settled(Result result, Refund refund) {
    }

    private static final Logger LOG = Logger.getLogger(LateRefunds.class);

    private static final String PAGE = """
            select refund_id, payment_key from refund_watch
            where status = 'WATCHING' and next_look_at <= $1 and refund_id <> all($2)
            order by next_look_at, refund_id
            limit $3""";

    private final Pool pool;
    private final PaymentGatewayClient gateway;
    private final Refunds refunds;
    private final RefundMetrics metrics;

    LateRefunds(Pool pool, PaymentGatewayClient gateway, Refunds refunds, ReconciliationSettings settings,
            @Identifier(GatewayGuards.QUERY) GatewayGuard lookups, RefundMetrics metrics, Clock clock) {
        super(QUEUE, lookups, settings, clock);
        this.pool = pool;
        this.gateway = gateway;
        this.refunds = refunds;
        this.metrics = metrics;
    }

    @Override
    public Uni<PagedRun.Summary<Result>> run() {
        OffsetDateTime started = clock.instant().atOffset(ZoneOffset.UTC);
        return over(Result.class, page(pool, PAGE, row -> new Candidate(row.getUUID("refund_id"), row.getString("payment_key")), started), Candidate::refundId, this::look).map(summary -> {
                    if (summary.count(Result.RECORDED) + summary.count(Result.NOTHING_ARRIVED) + summary.count(Result.WAITING_FOR_ROOM) > 0) {
                        LOG.infof("late refunds: %d looked at: %d recorded late, %d nothing arrived, %d waiting for refunds in flight, "
                                        + "%d still watched, %d not reachable", summary.examined(), summary.count(Result.RECORDED),
                                summary.count(Result.NOTHING_ARRIVED), summary.count(Result.WAITING_FOR_ROOM),
                                summary.count(Result.STILL_WATCHING), summary.unreachable());
                    }
                    return summary;
                });
    }

    private Uni<Result> look(Candidate watched) {
        String key = Refund.gatewayKey(watched.refundId());
        return gateway.find(watched.paymentKey())
                .map(payment -> payment.flatMap(found -> found.cancelOf(key)))
                .chain(cancel -> settle(watched.refundId(), cancel))
                .map(settled -> reported(watched, settled));
    }

    /** After the commit: the metric of how the watch ended, and a WARN when money went back after the refund had been failed. */
    private Result reported(Candidate watched, Settled settled) {
        switch (settled.result()) {
            case RECORDED -> {
                metrics.watch(RefundWatchStatus.RECORDED);
                Refund refund = settled.refund();
                LOG.warnf("refund %s of invoice %s had FAILED without the gateway's word, but the gateway gave back %d %s later "
                        + "(gateway payment %s, transaction %s): recorded now (RefundSucceeded, the ledger's REFUND); check that it was "
                        + "not refunded again by hand", refund.id, refund.invoiceId, refund.amount, refund.currency, watched.paymentKey(),
                        refund.gatewayTransactionKey);
            }
            case NOTHING_ARRIVED -> metrics.watch(RefundWatchStatus.NOTHING_ARRIVED);
            default -> {
            }
        }
        return settled.result();
    }

    @WithTransaction
    Uni<Settled> settle(UUID refundId, Optional<GatewayCancel> cancel) {
        Instant now = clock.instant();
        return RefundWatch.lockById(refundId).chain(watch -> {
            if (watch == null || !watch.watching()) {
                return Uni.createFrom().item(new Settled(Result.ALREADY_SETTLED, null));
            }
            return Refund.lockById(refundId).chain(refund -> {
                if (refund.status != RefundStatus.FAILED) {
                    // only this job takes a watched refund out of FAILED, under the watch's lock: never seen, but never recorded twice
                    watch.resolve(RefundWatchStatus.RECORDED, "the refund is " + refund.status + " already", now);
                    return Uni.createFrom().item(new Settled(Result.ALREADY_SETTLED, refund));
                }
                if (cancel.isPresent()) {
                    return refunds.recordLate(refund, cancel.get().transactionKey(), now).map(recorded -> {
                        if (recorded) {
                            watch.recorded(cancel.get().transactionKey(), now);
                            return new Settled(Result.RECORDED, refund);
                        }
                        watch.waitFor("the gateway gave back " + refund.amount + " with the refund's key, more than the invoice has free of "
                                + "refunds in flight: waiting for them", now, settings.interval());
                        LOG.infof("refund %s: the gateway executed its cancel late, but refunds in flight hold the invoice's amount; "
                                + "recorded once they are settled", refund.id);
                        return new Settled(Result.WAITING_FOR_ROOM, refund);
                    });
                }
                if (now.isBefore(watch.watchUntil)) {
                    watch.lookAgain("the gateway lists no cancel for the refund yet", now, settings.interval(), settings.strayLookMax());
                    return Uni.createFrom().item(new Settled(Result.STILL_WATCHING, refund));
                }
                watch.resolve(RefundWatchStatus.NOTHING_ARRIVED, "the gateway listed no cancel for the refund before the watch ended", now);
                return Uni.createFrom().item(new Settled(Result.NOTHING_ARRIVED, refund));
            });
        });
    }
}
