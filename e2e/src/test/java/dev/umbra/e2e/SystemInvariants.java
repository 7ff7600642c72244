package dev.umbra.e2e;

import static dev.umbra.e2e.SystemClient.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.DiscordSandbox;
import dev.umbra.devstack.PaymentGatewaySandbox;
import dev.umbra.devstack.PaymentGatewaySandbox.Cancel;
import dev.umbra.devstack.PaymentGatewaySandbox.Charge;
import dev.umbra.testing.Database;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * What must hold of the whole system after any fault, once it has recovered and gone quiet, checked
 * over everything the running system ever did (not only the scenario's own guilds), from the services'
 * databases, Kafka and the sandboxes' own records:
 * <ul>
 * <li>every event a producer committed (its outbox numbered each aggregate's events 1..n in
 * {@code aggregate_sequence}) reached Kafka and audit: audit holds exactly events 1..n of each
 * aggregate, each once. None lost, none invented;</li>
 * <li>every consumer applied every such event of a type it handles, once (its {@code processed_event}
 * claim, in the transaction of its effects), and each aggregate's events in the producer's order;</li>
 * <li>nothing was dead-lettered since the scenario began;</li>
 * <li>money: once billing's clock has passed the reconciliation window no payment is left IN_PROGRESS; every
 * charge whose money the gateway keeps is one of billing's payments (by order id), at most one per thing charged
 * for (subscription, period, purpose); for every subscription the money the gateway keeps equals its ledger, and
 * its succeeded payments less its refunds;</li>
 * <li>notifications: every message guild's dispatcher finished reached its owner (a repeat of a post is dropped
 * by its nonce, as Discord does, and counted), none is left waiting, none was given up since the scenario
 * began.</li>
 * </ul>
 * Events produced by hand to a topic (the replay tests' repairs) belong to no producer's sequence and are
 * left to the tests that made them.
 */
final class SystemInvariants {

    private static final List<String> DATABASES = List.of("guild", "licensing", "billing", "recovery", "audit");
    /** billing's reconciliation settles a payment once it is older than settle-after plus the pending window (as shipped). */
    private static final Duration RECONCILIATION_WINDOW = Duration.ofSeconds(30).plus(Duration.ofMinutes(5)).plusSeconds(1);

    /** Where the system stood when a scenario began: what it did after is the scenario's. */
    record Mark(Instant at, long audited, long eventRecords, long deadLetters, int posts) {
    }

    /** What a check found, for docs/reliability.md. */
    record Figures(long eventsCommitted, long recordsDelivered, long eventsChecked, long claimsChecked, int subscriptions,
            int notifications, long postedAgain) {

        long sentAgain() {
            return recordsDelivered - eventsCommitted;
        }
    }

    private SystemInvariants() {
    }

    static Mark mark() {
        return new Mark(Instant.now(), audited(), records(false), records(true), Devstack.shared().discord().postedNonces().size());
    }

    /**
     * Waits until every consumer caught up and billing settled what it could, then checks every invariant and
     * prints the scenario's figures.
     */
    static Figures assertHold(String scenario, Mark since) {
        SystemClient umbra = new SystemClient();
        // first, as it moves billing's clock and so makes events (a settled charge, a renewal) the checks after it cover
        int subscriptions = moneyAddsUp(umbra);
        SystemClient.awaitAllConsumed();
        long[] checked = new long[2];
        await().atMost(TIMEOUT).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            long[] counts = eventsReachedEveryConsumerOnceInOrder();
            checked[0] = counts[0];
            checked[1] = counts[1];
        });
        assertThat(records(true) - since.deadLetters()).as("records dead-lettered since %s began", scenario).isZero();
        int notifications = everyNotificationDeliveredOnce(umbra.discord(), since);
        long committed = audited() - since.audited();
        List<String> posted = umbra.discord().postedNonces();
        long postedAgain = posted.size() - since.posts() - posted.subList(since.posts(), posted.size()).stream().distinct().count();
        Figures figures = new Figures(committed, records(false) - since.eventRecords(), checked[0], checked[1], subscriptions,
                notifications, postedAgain);
        System.out.printf("invariants after %s: %d events published since it began, %d records delivered to their topics (%d sent "
                        + "again); over the whole run so far: %d committed events in audit once each and in sequence, %d claims in "
                        + "order at every consumer, none missing, no dead letter; %d subscriptions' money adds up, no money kept "
                        + "twice for one thing; %d messages each delivered (%d posts repeated since it began, dropped by their nonce)%n",
                scenario, figures.eventsCommitted(), figures.recordsDelivered(), figures.sentAgain(), figures.eventsChecked(),
                figures.claimsChecked(), figures.subscriptions(), figures.notifications(), figures.postedAgain());
        return figures;
    }

    /** Returns how many events and claims were checked. */
    private static long[] eventsReachedEveryConsumerOnceInOrder() {
        Map<String, Long> lastSequence = new HashMap<>();
        for (String database : DATABASES) {
            for (List<String> row : Database.of(database).rows("select aggregate_type, aggregate_id, last_sequence from aggregate_sequence")) {
                Long before = lastSequence.put(row.get(0) + "/" + row.get(1), Long.parseLong(row.get(2)));
                assertThat(before).as("aggregate %s/%s numbered by two producers", row.get(0), row.get(1)).isNull();
            }
        }
        // every event audit holds of a producer's aggregate: its id, type and sequence
        Map<String, Map<Long, List<String>>> audited = new HashMap<>();
        Map<String, String> typeOf = new HashMap<>();
        Map<String, Long> sequenceOf = new HashMap<>();
        Map<String, String> aggregateOf = new HashMap<>();
        for (List<String> row : Database.of("audit").rows("select aggregate_type, aggregate_id, event_id::text, event_type, sequence "
                + "from audit_log")) {
            String aggregate = row.get(0) + "/" + row.get(1);
            if (!lastSequence.containsKey(aggregate)) {
                continue;
            }
            long sequence = Long.parseLong(row.get(4));
            audited.computeIfAbsent(aggregate, a -> new HashMap<>()).computeIfAbsent(sequence, s -> new ArrayList<>()).add(row.get(2));
            typeOf.put(row.get(2), row.get(3));
            sequenceOf.put(row.get(2), sequence);
            aggregateOf.put(row.get(2), aggregate);
        }
        List<String> wrong = new ArrayList<>();
        lastSequence.forEach((aggregate, last) -> {
            Map<Long, List<String>> events = audited.getOrDefault(aggregate, Map.of());
            for (long sequence = 1; sequence <= last; sequence++) {
                List<String> ids = events.getOrDefault(sequence, List.of());
                if (ids.size() != 1) {
                    wrong.add(aggregate + " event " + sequence + " of " + last + ": " + (ids.isEmpty() ? "not in audit" : "events " + ids));
                }
            }
            events.keySet().stream().filter(sequence -> sequence < 1 || sequence > last)
                    .forEach(sequence -> wrong.add(aggregate + " event " + sequence + " beyond what the producer numbered (" + last + ")"));
        });
        assertThat(wrong).as("events committed by a producer that audit does not hold exactly once").isEmpty();

        long claims = 0;
        List<String> missed = new ArrayList<>();
        List<String> outOfOrder = new ArrayList<>();
        for (String database : DATABASES) {
            Map<String, Set<String>> typesOf = new HashMap<>();
            Map<String, Set<String>> claimed = new HashMap<>();
            Map<String, List<String[]>> inClaimOrder = new HashMap<>();
            for (List<String> row : Database.of(database).rows("select consumer, event_id::text, event_type from processed_event "
                    + "order by processed_at, claim_order")) {
                String consumer = row.get(0);
                typesOf.computeIfAbsent(consumer, c -> new HashSet<>()).add(row.get(2));
                claimed.computeIfAbsent(consumer, c -> new HashSet<>()).add(row.get(1));
                if (aggregateOf.containsKey(row.get(1))) {
                    inClaimOrder.computeIfAbsent(consumer + " " + aggregateOf.get(row.get(1)), k -> new ArrayList<>())
                            .add(new String[] {row.get(1), Long.toString(sequenceOf.get(row.get(1)))});
                    claims++;
                }
            }
            // a consumer handles the types it ever claimed: it must have claimed every such event a producer committed
            typesOf.forEach((consumer, types) -> typeOf.forEach((eventId, type) -> {
                if (types.contains(type) && !claimed.get(consumer).contains(eventId)) {
                    missed.add(consumer + " (" + database + ") never applied " + type + " " + eventId + " of " + aggregateOf.get(eventId));
                }
            }));
            inClaimOrder.forEach((consumerAndAggregate, applied) -> {
                for (int i = 1; i < applied.size(); i++) {
                    if (Long.parseLong(applied.get(i)[1]) <= Long.parseLong(applied.get(i - 1)[1])) {
                        outOfOrder.add(consumerAndAggregate + " (" + database + "): event " + applied.get(i)[1] + " applied after event "
                                + applied.get(i - 1)[1]);
                    }
                }
            });
        }
        assertThat(missed).as("events a consumer that handles their type never applied").isEmpty();
        assertThat(outOfOrder).as("events a consumer applied out of their aggregate's order").isEmpty();
        return new long[] {sequenceOf.size(), claims};
    }

    /**
     * Moves billing's clock past the reconciliation window, then on until no payment is IN_PROGRESS and the money
     * adds up (a charge taken for a payment billing failed is given back by its stray-charge job, on billing's
     * clock); returns how many subscriptions were checked. Every charge whose money the gateway keeps must be one
     * of billing's payments (by its order id), at most one per thing charged for (subscription, period and
     * purpose), and for every subscription what the gateway keeps must equal its ledger, and its succeeded
     * payments less its refunds.
     */
    private static int moneyAddsUp(SystemClient umbra) {
        PaymentGatewaySandbox gateway = umbra.gateway();
        Database billing = Database.of("billing");
        umbra.advanceBillingClock(RECONCILIATION_WINDOW);
        List<String> wrong = new ArrayList<>();
        int[] subscriptions = new int[1];
        await().atMost(TIMEOUT).pollInterval(Duration.ofSeconds(2)).until(() -> {
            wrong.clear();
            billing.rows("select id::text, subscription_id::text from payment where status = 'IN_PROGRESS'")
                    .forEach(row -> wrong.add("payment " + row.get(0) + " of " + row.get(1) + " IN_PROGRESS"));
            Map<String, List<String>> paymentsByOrder = new HashMap<>();
            billing.rows("select order_id, subscription_id::text, period::text, purpose from payment")
                    .forEach(row -> paymentsByOrder.put(row.get(0), row));
            Map<String, Long> kept = new HashMap<>();
            Map<String, String> keptFor = new HashMap<>();
            for (Charge charge : gateway.charges()) {
                long keeps = charge.tookMoney() ? charge.amount() - gateway.cancelsOf(charge.paymentKey()).stream().mapToLong(Cancel::amount).sum()
                        : 0;
                if (keeps == 0) {
                    continue;
                }
                List<String> payment = paymentsByOrder.get(charge.orderId());
                if (payment == null) {
                    wrong.add("the gateway keeps " + keeps + " of order " + charge.orderId() + ", which is none of billing's payments");
                    continue;
                }
                String thing = payment.get(1) + " period " + payment.get(2) + " " + payment.get(3);
                String earlier = keptFor.put(thing, charge.paymentKey());
                if (earlier != null) {
                    wrong.add("the gateway keeps money of two charges for " + thing + ": " + earlier + " and " + charge.paymentKey());
                }
                kept.merge(payment.get(1), keeps, Long::sum);
            }
            Map<String, Long> ledger = sums(billing, "select subscription_id::text, sum(amount) from ledger_entry group by 1");
            Map<String, Long> succeeded = sums(billing, "select subscription_id::text, sum(paid_amount) from payment "
                    + "where status = 'SUCCEEDED' group by 1");
            Map<String, Long> refunded = sums(billing, "select i.subscription_id::text, sum(r.amount) from refund r "
                    + "join invoice i on i.id = r.invoice_id where r.status = 'SUCCEEDED' group by 1");
            List<List<String>> all = billing.rows("select id::text from subscription");
            subscriptions[0] = all.size();
            for (List<String> row : all) {
                String subscription = row.get(0);
                long booked = ledger.getOrDefault(subscription, 0L);
                long keptThere = kept.getOrDefault(subscription, 0L);
                long paid = succeeded.getOrDefault(subscription, 0L) - refunded.getOrDefault(subscription, 0L);
                if (keptThere != booked || paid != booked) {
                    wrong.add("subscription " + subscription + ": the gateway keeps " + keptThere + ", the ledger says " + booked
                            + ", payments less refunds " + paid);
                }
            }
            if (wrong.isEmpty()) {
                return true;
            }
            umbra.advanceBillingClock(Duration.ofMinutes(2));
            return false;
        });
        assertThat(wrong).isEmpty();
        return subscriptions[0];
    }

    private static Map<String, Long> sums(Database database, String sql) {
        return database.rows(sql).stream().collect(Collectors.toMap(row -> row.get(0), row -> Long.parseLong(row.get(1))));
    }

    /** Waits until guild has finished every message, then checks each reached its owner once; returns how many there are. */
    private static int everyNotificationDeliveredOnce(DiscordSandbox discord, Mark since) {
        Database guild = Database.of("guild");
        await().atMost(TIMEOUT).until(() -> guild.count("select count(*) from work_item where queue = 'discord-dm' "
                + "and status in ('pending', 'leased')") == 0);
        assertThat(guild.rows("select item_key from work_item where queue = 'discord-dm' and status = 'dead' and finished_at >= ?",
                since.at())).as("messages given up since the scenario began").isEmpty();
        // the finished ones first: one finished after this read was delivered before the deliveries are read
        List<List<String>> done = guild.rows("select item_key from work_item where queue = 'discord-dm' and status = 'done'");
        Map<String, Long> deliveries = discord.delivered().stream()
                .collect(Collectors.groupingBy(DiscordSandbox.Delivered::nonce, Collectors.counting()));
        Set<String> wrong = new TreeSet<>();
        for (List<String> row : done) {
            long times = deliveries.getOrDefault(nonce(UUID.fromString(row.get(0))), 0L);
            if (times != 1) {
                wrong.add("message " + row.get(0) + " delivered " + times + " times");
            }
        }
        assertThat(wrong).as("messages guild sent, as the owners received them").isEmpty();
        return done.size();
    }

    /** The nonce guild-service posts a message with: its id's 16 bytes in URL-safe base64 (Discord allows 25 characters). */
    private static String nonce(UUID id) {
        ByteBuffer bytes = ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }

    /** Events audit holds: every event published, once. */
    private static long audited() {
        return Database.of("audit").count("select count(*) from audit_log");
    }

    /** Records on the event topics ({@code umbra.<aggregate>}), or on their dead-letter topics, so far. */
    private static long records(boolean deadLetters) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, Devstack.shared().kafka().bootstrapServers()))) {
            return await().atMost(TIMEOUT).ignoreExceptions().until(() -> {
                List<String> topics = admin.listTopics().names().get().stream()
                        .filter(topic -> topic.startsWith("umbra.") && topic.endsWith(".dlq") == deadLetters)
                        .sorted(Comparator.naturalOrder()).toList();
                if (topics.isEmpty()) {
                    return 0L;
                }
                List<TopicPartition> partitions = admin.describeTopics(topics).allTopicNames().get().values().stream()
                        .flatMap(topic -> topic.partitions().stream().map(p -> new TopicPartition(topic.name(), p.partition()))).toList();
                Map<TopicPartition, OffsetSpec> latest = partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()));
                Map<TopicPartition, OffsetSpec> earliest = partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.earliest()));
                long ends = admin.listOffsets(latest).all().get().values().stream().mapToLong(o -> o.offset()).sum();
                long starts = admin.listOffsets(earliest).all().get().values().stream().mapToLong(o -> o.offset()).sum();
                return ends - starts;
            }, count -> count >= 0);
        }
    }
}
