package dev.umbra.billing.tracing;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The spans billing records in tests, in memory; as a span exporter bean it also stands in for the OTLP
 * exporter. Only traces a caller sampled are recorded ({@code parentbased_always_off} in the test profile).
 */
public class RecordedSpans {

    @Produces
    @Singleton
    InMemorySpanExporter spans() {
        return InMemorySpanExporter.create();
    }
}
