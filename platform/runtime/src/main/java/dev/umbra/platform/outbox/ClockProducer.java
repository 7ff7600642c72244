package dev.umbra.platform.outbox;

import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;

/** The system clock in UTC; tests may replace it with a bean of their own. */
@ApplicationScoped
public class ClockProducer {

    @Produces
    @DefaultBean
    @ApplicationScoped
    Clock clock() {
        return Clock.systemUTC();
    }
}
