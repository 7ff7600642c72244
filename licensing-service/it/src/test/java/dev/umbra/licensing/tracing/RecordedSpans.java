package dev.umbra.licensing.tracing;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The spans the service records in tests, in memory. Being a span exporter bean, it also stands in for
 * the OTLP exporter, so no test tries to reach a collector. Only traces whose caller sampled them are
 * recorded ({@code parentbased_always_off} in the test profile), so the other tests record nothing.
 */
public class RecordedSpans {

    @Produces
    @Singleton
    InMemorySpanExporter spans() {
        return InMemorySpanExporter.create();
    }
}
