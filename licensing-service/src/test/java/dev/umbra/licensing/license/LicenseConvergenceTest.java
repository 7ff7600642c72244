package dev.umbra.licensing.license;

import static dev.umbra.licensing.license.LicenseRulesTest.mark;
import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.events.plan.Plan;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Property: for the event sets of the three flows (docs/architecture.md), EVERY interleaving of the guild topic
 * and the subscription topic (each keeping its own order) leaves the same license.
 */
class LicenseConvergenceTest {

    static final String GUILD = "123456789012345678";
    static final UUID SUBSCRIPTION = UUID.fromString("00000000-0000-0000-0000-0000000000bb");
    static final Instant T = Instant.parse("2026-11-01T00:00:00Z");
    static final Instant PERIOD_END = Instant.parse("2026-12-01T00:00:00Z");
    static final Instant RENEWED_END = Instant.parse("2027-01-01T00:00:00Z");

    /** One event of a flow, as licensing applies it. */
    record Step(String name, UnaryOperator<LicenseState> rule) {
        @Override
        public String toString() {
            return name;
        }
    }

    record Flow(String name, List<Step> guildTopic, List<Step> subscriptionTopic) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Step at(String name, UnaryOperator<LicenseState> rule) {
        return new Step(name, rule);
    }

    static List<Flow> flows() {
        Step installed = at("BotInstalled", l -> LicenseRules.botInstalled(l, GUILD, mark(T)));
        Step started = at("SubscriptionStarted", l -> LicenseRules.subscriptionStarted(l, GUILD, SUBSCRIPTION, Plan.PRO, PERIOD_END, mark(T.plusSeconds(60))));
        Step renewed = at("PaymentSucceeded", l -> LicenseRules.paymentSucceeded(l, SUBSCRIPTION, RENEWED_END, mark(T.plus(Duration.ofDays(30)))));
        Step finalFailure = at("PaymentFailedFinal", l -> LicenseRules.paymentFailedFinal(l, SUBSCRIPTION, mark(T.plus(Duration.ofDays(64)))));
        Step kicked = at("BotKicked", l -> LicenseRules.botKicked(l, mark(T.plus(Duration.ofDays(2)))));
        Step suspended = at("SubscriptionSuspended", l -> LicenseRules.subscriptionSuspended(l, SUBSCRIPTION, "BOT_KICKED", mark(T.plus(Duration.ofDays(2)).plusSeconds(1))));
        Step reinstalled = at("BotInstalled again", l -> LicenseRules.botInstalled(l, GUILD, mark(T.plus(Duration.ofDays(3)))));
        Step resumed = at("SubscriptionResumed", l -> LicenseRules.subscriptionResumed(l, SUBSCRIPTION, mark(T.plus(Duration.ofDays(3)).plusSeconds(1))));
        Step deleted = at("GuildDeleted", l -> LicenseRules.guildDeleted(l, GUILD, mark(T.plus(Duration.ofDays(2)).plusSeconds(6))));
        Step canceledNow = at("SubscriptionCanceled now", l -> LicenseRules.subscriptionCanceled(l, SUBSCRIPTION, false, mark(T.plus(Duration.ofDays(2)).plusSeconds(5))));
        return List.of(
                new Flow("1 first subscription", List.of(installed), List.of(started, renewed)),
                new Flow("2 dunning", List.of(installed), List.of(started, renewed, finalFailure)),
                new Flow("3 bot kicked", List.of(installed, kicked), List.of(started, renewed, suspended)),
                new Flow("3b bot kicked and installed again", List.of(installed, kicked, reinstalled), List.of(started, renewed, suspended, resumed)),
                new Flow("3c bot kicked, subscription canceled, installed again", List.of(installed, kicked, reinstalled),
                        List.of(started, renewed, suspended, canceledNow)),
                // kicked while its install was unseen by guild-service, then deleted: licensing never hears of an install
                new Flow("4 a guild deleted before licensing heard of it", List.of(deleted), List.of(started, canceledNow)));
    }

    @ParameterizedTest
    @MethodSource("flows")
    void everyInterleavingEndsInTheSameLicense(Flow flow) {
        List<List<Step>> orders = interleavings(flow.guildTopic(), flow.subscriptionTopic());
        Set<Object> outcomes = new HashSet<>();
        for (List<Step> order : orders) {
            LicenseState license = null;
            for (Step step : order) {
                license = step.rule().apply(license);
            }
            outcomes.add(observable(license));
        }
        assertThat(orders).hasSizeGreaterThan(2);
        assertThat(outcomes).as("outcomes of %d orders of flow %s", orders.size(), flow).hasSize(1);
    }

    @ParameterizedTest
    @MethodSource("flows")
    void everyInterleavingWithEveryEventDeliveredTwiceEndsInTheSameLicense(Flow flow) {
        Set<Object> outcomes = new HashSet<>();
        for (List<Step> order : interleavings(doubled(flow.guildTopic()), doubled(flow.subscriptionTopic()))) {
            LicenseState license = null;
            for (Step step : order) {
                license = step.rule().apply(license);
            }
            outcomes.add(observable(license));
        }
        assertThat(outcomes).hasSize(1);
    }

    /** Subscription flows with plan changes beside the period and the suspension, each event of which may be redriven late. */
    static List<Flow> redrivenFlows() {
        Step installed = at("BotInstalled", l -> LicenseRules.botInstalled(l, GUILD, mark(T)));
        Step started = at("SubscriptionStarted", l -> LicenseRules.subscriptionStarted(l, GUILD, SUBSCRIPTION, Plan.PRO, PERIOD_END, mark(T.plusSeconds(60))));
        Step upgraded = at("PlanUpgraded", l -> LicenseRules.planUpgraded(l, SUBSCRIPTION, Plan.PREMIUM, mark(T.plus(Duration.ofDays(1)))));
        Step suspended = at("SubscriptionSuspended", l -> LicenseRules.subscriptionSuspended(l, SUBSCRIPTION, "BILLING_KEY_DELETED", mark(T.plus(Duration.ofDays(2)))));
        Step resumed = at("SubscriptionResumed", l -> LicenseRules.subscriptionResumed(l, SUBSCRIPTION, mark(T.plus(Duration.ofDays(3)))));
        Step renewed = at("PaymentSucceeded", l -> LicenseRules.paymentSucceeded(l, SUBSCRIPTION, RENEWED_END, mark(T.plus(Duration.ofDays(30)))));
        Step downgraded = at("PlanDowngraded", l -> LicenseRules.planDowngraded(l, SUBSCRIPTION, Plan.PRO, RENEWED_END,
                mark(T.plus(Duration.ofDays(31))), T.plus(Duration.ofDays(31))));
        Step suspendedAgain = at("SubscriptionSuspended again", l -> LicenseRules.subscriptionSuspended(l, SUBSCRIPTION, "BILLING_KEY_DELETED",
                mark(T.plus(Duration.ofDays(32)))));
        Step canceledNow = at("SubscriptionCanceled now", l -> LicenseRules.subscriptionCanceled(l, SUBSCRIPTION, false, mark(T.plus(Duration.ofDays(33)))));
        return List.of(
                new Flow("5 plan changes, a suspension lifted, a renewal", List.of(installed),
                        List.of(started, upgraded, suspended, resumed, renewed, downgraded, suspendedAgain)),
                new Flow("6 the same, then canceled", List.of(installed),
                        List.of(started, upgraded, suspended, resumed, renewed, downgraded, canceledNow)));
    }

    /**
     * An event dead-lettered and redriven after every later event of its subscription (the start excepted: what follows it
     * is dead-lettered with it, its subscription unknown) leaves the license billing's order leaves.
     */
    @ParameterizedTest
    @MethodSource("redrivenFlows")
    void aSubscriptionEventRedrivenAfterTheLaterOnesEndsInTheLicenseOfBillingsOrder(Flow flow) {
        List<Step> inOrder = new ArrayList<>(flow.guildTopic());
        inOrder.addAll(flow.subscriptionTopic());
        Object expected = observable(applied(inOrder));
        for (int late = 1; late < flow.subscriptionTopic().size() - 1; late++) {
            List<Step> order = new ArrayList<>(flow.guildTopic());
            List<Step> subscription = new ArrayList<>(flow.subscriptionTopic());
            Step redriven = subscription.remove(late);
            order.addAll(subscription);
            order.add(redriven);
            assertThat(observable(applied(order))).as("%s redriven last in flow %s", redriven, flow).isEqualTo(expected);
        }
    }

    static LicenseState applied(List<Step> order) {
        LicenseState license = null;
        for (Step step : order) {
            license = step.rule().apply(license);
        }
        return license;
    }

    /** What anyone can see of a license; its id is random and so not part of it. */
    static Object observable(LicenseState license) {
        return List.of(String.valueOf(license.plan()), String.valueOf(license.status()), String.valueOf(license.suspensionReason()),
                String.valueOf(license.effectiveExpiresAt()), String.valueOf(license.subscriptionId()));
    }

    static List<Step> doubled(List<Step> steps) {
        List<Step> doubled = new ArrayList<>();
        steps.forEach(step -> {
            doubled.add(step);
            doubled.add(step);
        });
        return doubled;
    }

    /** All merges of two sequences that keep the order within each. */
    static List<List<Step>> interleavings(List<Step> a, List<Step> b) {
        if (a.isEmpty() || b.isEmpty()) {
            List<Step> rest = new ArrayList<>(a);
            rest.addAll(b);
            return List.of(rest);
        }
        List<List<Step>> result = new ArrayList<>();
        for (List<Step> tail : interleavings(a.subList(1, a.size()), b)) {
            List<Step> order = new ArrayList<>(List.of(a.get(0)));
            order.addAll(tail);
            result.add(order);
        }
        for (List<Step> tail : interleavings(a, b.subList(1, b.size()))) {
            List<Step> order = new ArrayList<>(List.of(b.get(0)));
            order.addAll(tail);
            result.add(order);
        }
        return result;
    }
}
