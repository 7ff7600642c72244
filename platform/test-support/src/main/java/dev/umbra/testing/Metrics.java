package dev.umbra.testing;

import static io.restassured.RestAssured.given;

import io.quarkus.test.common.http.TestHTTPResourceManager;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;

/** A scrape of a service's {@code /q/metrics} (Prometheus text format), read the way an alert rule reads it. */
public final class Metrics {

    private final String exposition;

    private Metrics(String exposition) {
        this.exposition = exposition;
    }

    public static Metrics of(String exposition) {
        return new Metrics(exposition);
    }

    /** The metrics of the application under test (its management interface). */
    public static Metrics scrape() {
        return scrape(TestHTTPResourceManager.getManagementUri() + "/metrics");
    }

    public static Metrics scrape(String url) {
        return of(given().when().get(url).then().statusCode(200).extract().asString());
    }

    /**
     * The sum of every series of {@code name} whose labels contain all of {@code labels} (each such as
     * {@code outcome="processed"}); NaN when there is no such series.
     */
    public double sum(String name, String... labels) {
        double sum = Double.NaN;
        for (String line : exposition.lines().toList()) {
            if (line.startsWith("#") || !(line.startsWith(name + "{") || line.startsWith(name + " "))) {
                continue;
            }
            // series, value, then perhaps a timestamp and an exemplar ("# {trace_id=…} 1.0 1700000000.0")
            int labelsEnd = line.indexOf('}');
            int valueStart = line.indexOf(' ', labelsEnd < 0 ? 0 : labelsEnd) + 1;
            int valueEnd = line.indexOf(' ', valueStart);
            String series = line.substring(0, valueStart - 1);
            if (Arrays.stream(labels).allMatch(series::contains)) {
                double value = Double.parseDouble(valueEnd < 0 ? line.substring(valueStart) : line.substring(valueStart, valueEnd));
                sum = Double.isNaN(sum) ? value : sum + value;
            }
        }
        return sum;
    }

    /** Every metric name the scrape holds, as its series lines spell it (with _bucket, _count, _total suffixes). */
    public Set<String> names() {
        Set<String> names = new TreeSet<>();
        exposition.lines().filter(line -> !line.isBlank() && !line.startsWith("#"))
                .map(line -> line.split("[{ ]", 2)[0])
                .forEach(names::add);
        return names;
    }
}
