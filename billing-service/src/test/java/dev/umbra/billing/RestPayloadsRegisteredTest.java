package dev.umbra.billing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.testing.NativeReflection;
import org.junit.jupiter.api.Test;

/** The native image can read and write every body of billing-service's REST API and REST clients by reflection. */
class RestPayloadsRegisteredTest {

    @Test
    void everyRestPayloadIsRegisteredForReflection() {
        assertThat(NativeReflection.restPayloads()).isNotEmpty();
        assertThat(NativeReflection.registered()).containsAll(NativeReflection.restPayloads());
    }
}
