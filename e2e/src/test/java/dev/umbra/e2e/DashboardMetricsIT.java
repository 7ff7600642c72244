package dev.umbra.e2e;

import static dev.umbra.e2e.SystemClient.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.umbra.devstack.ServiceProcess;
import dev.umbra.e2e.SystemClient.Subscribed;
import dev.umbra.testing.Metrics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard and the Prometheus alert rules of {@code deploy/} name only metrics that the
 * packaged services really expose: a renamed meter would otherwise leave a panel empty and an alert
 * that never fires.
 */
class DashboardMetricsIT {

    private static final Path DEPLOY = Path.of(System.getProperty("umbra.repo.root", "..")).resolve("deploy");
    // A PromQL identifier followed by a selector, a range or the end of the vector it names.
    private static final Pattern IDENTIFIER = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?=\\s*[{\\[)]|\\s|$)");
    private static final Pattern GROUPING = Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern STRING = Pattern.compile("\"[^\"]*\"");
    private static final Set<String> PROMQL_WORDS = Set.of("sum", "min", "max", "avg", "count", "rate", "irate", "increase",
            "delta", "deriv", "histogram_quantile", "and", "or", "unless", "bool", "offset", "abs", "clamp_min");

    private final SystemClient umbra = new SystemClient();

    @AfterAll
    static void logsAreClean() {
        RunningSystem.assertCleanLogs();
    }

    @Test
    void theDashboardAndTheAlertRulesNameOnlyMetricsTheServicesExpose() throws IOException {
        Set<String> named = new TreeSet<>();
        JsonNode dashboard = new ObjectMapper().readTree(DEPLOY.resolve("grafana/dashboards/umbra.json").toFile());
        dashboard.get("panels").forEach(panel -> panel.get("targets").forEach(target -> named.addAll(metricNames(target.get("expr").asText()))));
        Files.readAllLines(DEPLOY.resolve("prometheus/alerts.yml")).stream()
                .filter(line -> line.strip().startsWith("expr:"))
                .forEach(line -> named.addAll(metricNames(line.strip().substring("expr:".length()))));
        assertThat(named).as("metric names parsed from the dashboard and the rules")
                .contains("umbra_outbox_events_total", "umbra_inbox_lag_seconds", "ft_circuitbreaker_state_current");

        // Counters with labels exist from their first increment: run the flow that moves every one of them.
        Subscribed paid = umbra.subscribedToPro();
        await().atMost(TIMEOUT).untilAsserted(() -> umbra.entitlements(paid.guildId()).body("entitledPlan", equalTo("PRO")));
        await().atMost(TIMEOUT).until(() -> !umbra.toldTo(paid.owner()).isEmpty());

        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(exposed()).as("metrics of the five services").containsAll(named));
    }

    private static Set<String> exposed() {
        Set<String> names = new TreeSet<>();
        for (ServiceProcess service : RunningSystem.get().services()) {
            Metrics.scrape(service.managementUrl() + "/q/metrics").names().forEach(name -> names.add(withoutHistogramSuffix(name)));
        }
        return names;
    }

    static Set<String> metricNames(String promQl) {
        String bare = GROUPING.matcher(STRING.matcher(promQl).replaceAll("\"\"")).replaceAll("");
        Set<String> names = new TreeSet<>();
        Matcher identifier = IDENTIFIER.matcher(bare);
        while (identifier.find()) {
            String name = identifier.group(1);
            boolean labelName = identifier.end() < bare.length() && bare.substring(identifier.end()).matches("(?s)\\s*=.*");
            if (!PROMQL_WORDS.contains(name) && !labelName) {
                names.add(withoutHistogramSuffix(name));
            }
        }
        return names;
    }

    private static String withoutHistogramSuffix(String name) {
        return name.replaceAll("_(bucket|count|sum|max)$", "");
    }
}
