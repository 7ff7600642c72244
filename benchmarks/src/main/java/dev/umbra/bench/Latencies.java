package dev.umbra.bench;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/** One measured quantity: an HdrHistogram in microseconds (3 significant digits), plus the failed attempts. */
final class Latencies {

    private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(10);

    private final Histogram histogram = new Histogram(HIGHEST_MICROS, 3);
    private long errors;
    private final Map<String, Long> errorsByCause = new TreeMap<>();

    void recordNanos(long nanos) {
        histogram.recordValue(Math.min(HIGHEST_MICROS, Math.max(0, nanos / 1000)));
    }

    void recordMillis(double millis) {
        recordNanos((long) (millis * 1_000_000));
    }

    void error() {
        errors++;
    }

    /** A failure with what it was (an HTTP status, an exception's class), so the report says what failed. */
    void error(String cause) {
        errors++;
        errorsByCause.merge(cause, 1L, Long::sum);
    }

    /** "503 × 12, timeout × 3", or "" without failures. */
    String errorCauses() {
        return errorsByCause.entrySet().stream().map(e -> e.getKey() + " × " + e.getValue())
                .collect(java.util.stream.Collectors.joining(", "));
    }

    long count() {
        return histogram.getTotalCount();
    }

    long errors() {
        return errors;
    }

    /** The value at {@code percentile} (0–100) in milliseconds; NaN when nothing was recorded. */
    double millis(double percentile) {
        return count() == 0 ? Double.NaN : histogram.getValueAtPercentile(percentile) / 1000.0;
    }

    double maxMillis() {
        return count() == 0 ? Double.NaN : histogram.getMaxValue() / 1000.0;
    }

    double meanMillis() {
        return count() == 0 ? Double.NaN : histogram.getMean() / 1000.0;
    }

    /** A latency for a table: whole milliseconds from 100 ms, else one decimal; a dash for none. */
    static String ms(double millis) {
        if (Double.isNaN(millis)) {
            return "–";
        }
        return millis >= 100 ? String.format(Locale.ROOT, "%,.0f ms", millis) : String.format(Locale.ROOT, "%.1f ms", millis);
    }

    /** p50, p90, p99, p99.9 and max, for the console. */
    String row() {
        if (count() == 0) {
            return "no data (" + errors + " errors)";
        }
        return String.format("%8.2f ms %8.2f ms %8.2f ms %8.2f ms %8.1f ms  n=%d errors=%d", millis(50), millis(90), millis(99),
                millis(99.9), maxMillis(), count(), errors);
    }
}
