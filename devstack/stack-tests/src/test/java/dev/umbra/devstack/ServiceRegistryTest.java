package dev.umbra.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.events.EventCatalog;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** What is derived from the registry and committed stays equal to it. */
class ServiceRegistryTest {

    private static final Path REPO = Path.of(System.getProperty("umbra.repo.root", "../..")).toAbsolutePath().normalize();

    @Test
    void theCommittedConnectorFilesAreWhatTheRegistryGenerates() throws IOException {
        Path folder = REPO.resolve("deploy/connectors");
        for (UmbraService service : ServiceRegistry.SERVICES) {
            Path file = folder.resolve(OutboxConnectors.fileName(service));
            if (service.hasOutbox()) {
                assertThat(file).as("%s differs from the registry; regenerate with: %s", file, OutboxConnectors.REGENERATE)
                        .exists().hasContent(OutboxConnectors.file(service));
            } else {
                assertThat(file).as("%s publishes nothing and needs no connector", service.name()).doesNotExist();
            }
        }
        try (Stream<Path> files = Files.list(folder)) {
            List<String> expected = ServiceRegistry.SERVICES.stream().filter(UmbraService::hasOutbox).map(OutboxConnectors::fileName).toList();
            assertThat(files.map(f -> f.getFileName().toString())).as("files of no registered service")
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    @Test
    void eachServiceListensOnItsRegisteredPorts() throws IOException {
        for (UmbraService service : ServiceRegistry.SERVICES) {
            Properties properties = new Properties();
            try (Reader in = Files.newBufferedReader(REPO.resolve(service.module() + "/src/main/resources/application.properties"))) {
                properties.load(in);
            }
            assertThat(properties.getProperty("quarkus.http.port")).as(service.module()).isEqualTo(Integer.toString(service.httpPort()));
            assertThat(properties.getProperty("quarkus.management.port")).as(service.module())
                    .isEqualTo(Integer.toString(service.managementPort()));
        }
    }

    @Test
    void namesPortsAndDatabasesAreUniqueAndEveryAggregateHasAPublisher() {
        List<UmbraService> services = ServiceRegistry.SERVICES;
        assertThat(services).extracting(UmbraService::name).doesNotHaveDuplicates();
        assertThat(services).extracting(UmbraService::database).doesNotHaveDuplicates();
        assertThat(services.stream().flatMap(s -> Stream.of(s.httpPort(), s.managementPort()))).doesNotHaveDuplicates();
        assertThat(services.stream().flatMap(s -> s.publishes().stream())).as("an aggregate's topic has one publisher")
                .doesNotHaveDuplicates()
                .containsAll(EventCatalog.entries().stream().map(EventCatalog.Entry::aggregateType).distinct().toList());
    }
}
