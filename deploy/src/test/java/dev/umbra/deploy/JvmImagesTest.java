package dev.umbra.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.devstack.ServiceRegistry;
import dev.umbra.devstack.UmbraService;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The JVM images' options, which no machine here can start an image to see: C1 only, and G1 as the services run
 * everywhere else. The base image's run-java.sh names a collector of its own (the parallel one) unless
 * {@code GC_CONTAINER_OPTIONS} names another, and a JVM given two collectors refuses to start.
 */
class JvmImagesTest {

    private static final Path ROOT = Path.of(System.getProperty("umbra.repo.root", "..")).toAbsolutePath().normalize();
    private static final Pattern ENV = Pattern.compile("(?m)^ENV ([A-Z_]+)=\"([^\"]*)\"$");
    private static final Pattern COLLECTOR = Pattern.compile("-XX:\\+Use\\w*GC\\b");

    @Test
    void everyServiceRunsC1OnlyWithG1NamedOnceAndHalfItsMemoryLimitForTheHeap() throws IOException {
        for (UmbraService service : ServiceRegistry.SERVICES) {
            String dockerfile = Files.readString(ROOT.resolve(service.module()).resolve("src/main/docker/Dockerfile.jvm"));
            String javaOptions = env(dockerfile, "JAVA_OPTS_APPEND");
            assertThat(javaOptions).as(service.module()).contains("-XX:TieredStopAtLevel=1");
            assertThat(COLLECTOR.matcher(javaOptions).find()).as("%s names no collector beside GC_CONTAINER_OPTIONS", service.module())
                    .isFalse();
            assertThat(env(dockerfile, "GC_CONTAINER_OPTIONS")).as(service.module()).isEqualTo("-XX:+UseG1GC");
            // G1's own defaults instead of the script's tuning for the parallel collector, and a heap of half the limit
            assertThat(env(dockerfile, "GC_MIN_HEAP_FREE_RATIO")).as(service.module()).isEqualTo("40");
            assertThat(env(dockerfile, "GC_MAX_HEAP_FREE_RATIO")).as(service.module()).isEqualTo("70");
            assertThat(env(dockerfile, "GC_TIME_RATIO")).as(service.module()).isEqualTo("12");
            assertThat(env(dockerfile, "JAVA_MAX_MEM_RATIO")).as(service.module()).isEqualTo("50");
        }
    }

    private static String env(String dockerfile, String name) {
        Matcher env = ENV.matcher(dockerfile);
        while (env.find()) {
            if (env.group(1).equals(name)) {
                return env.group(2);
            }
        }
        throw new AssertionError("no ENV " + name);
    }
}
