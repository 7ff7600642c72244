package dev.umbra.e2e;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;

/**
 * A fault scenario of the full suite: it waits out real timeouts, leases and restarts, so it runs with
 * {@code ./mvnw verify -Pfault-suite} and not in the README's test command, which keeps one kill
 * scenario (licensing killed mid-burst) beside the flows, the replays and the sweeps.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Tag(FaultSuite.TAG)
public @interface FaultSuite {

    String TAG = "fault-suite";
}
