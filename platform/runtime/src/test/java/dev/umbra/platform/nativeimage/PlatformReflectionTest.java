package dev.umbra.platform.nativeimage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.events.EventCatalog;
import dev.umbra.platform.web.Problem;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import org.graalvm.nativeimage.hosted.Feature;
import org.junit.jupiter.api.Test;

/** A native image can read and write every event of the catalogue and every problem answer by reflection. */
class PlatformReflectionTest {

    @Test
    void everyCataloguePayloadAndProblemDetailsAreRegistered() {
        assertThat(PlatformReflection.classes())
                .containsAll(EventCatalog.entries().stream().<Class<?>>map(EventCatalog.Entry::payloadType).toList())
                .contains(Problem.class, Problem.Violation.class)
                .doesNotContain(String.class);
    }

    @Test
    void theNativeBuildRunsTheFeatureThatRegistersThem() throws IOException {
        Properties platform = new Properties();
        try (InputStream in = PlatformReflection.class.getResourceAsStream("/META-INF/microprofile-config.properties")) {
            platform.load(in);
        }
        assertThat(platform.getProperty("quarkus.native.additional-build-args"))
                .contains("--features=" + PlatformReflectionFeature.class.getName());
        assertThat(Feature.class).isAssignableFrom(PlatformReflectionFeature.class);
    }
}
