package dev.umbra.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.umbra.devstack.ComposeSecrets;
import dev.umbra.devstack.OutboxConnectors;
import dev.umbra.devstack.PostgresServer;
import dev.umbra.devstack.ServiceRegistry;
import dev.umbra.devstack.UmbraService;
import dev.umbra.events.EventCatalog;
import dev.umbra.events.Topics;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docker-compose.yml, read as Docker Compose reads it, against what it runs: every service of the
 * registry with its ports, configuration and images, the connector files, the catalogue's topics, the
 * secrets a compose run makes, and the mounted files. No Docker here: what only a Docker machine can
 * check is in deploy/README.md.
 */
class ComposeFileTest {

    private static final Path ROOT = Path.of(System.getProperty("umbra.repo.root", "..")).toAbsolutePath().normalize();
    /** Mounted from the observability work (Prometheus' scrape configuration and alerts, Grafana's provisioning): checked when present. */
    private static final List<String> MOUNTED_FROM_OBSERVABILITY = List.of("deploy/prometheus", "deploy/grafana/");
    private static final Pattern ENV_REFERENCE = Pattern.compile("\\$\\{env:([A-Z0-9_]+)}");
    private static final Set<String> DEVSTACK_ONLY = Set.of("UMBRA_BILLING_CLOCK_CONTROL_ENABLED", "UMBRA_KAFKA_SESSION_TIMEOUT_MS",
            "UMBRA_KAFKA_HEARTBEAT_INTERVAL_MS", "UMBRA_KAFKA_COMMIT_INTERVAL_MS");
    private static final Pattern EXPOSE = Pattern.compile("(?m)^EXPOSE ([\\d ]+)$");

    private static JsonNode compose;
    private static JsonNode services;
    @TempDir
    static Path secrets;

    @BeforeAll
    static void read() throws IOException {
        compose = Yaml.document(ROOT.resolve("docker-compose.yml"));
        services = compose.path("services");
        ComposeSecrets.main(new String[] {"init", secrets.toString()});
    }

    @Test
    void everyServiceRunsWithItsPortsImagesAndHealth() throws IOException {
        ServiceConfiguration configuration = new ServiceConfiguration(ROOT);
        for (UmbraService service : ServiceRegistry.SERVICES) {
            JsonNode container = service(service.module());
            assertThat(publishedPorts(container)).as(service.module()).isEqualTo(configuration.ports(service));

            assertThat(container.path("build").path("context").asText()).isEqualTo(service.module());
            String dockerfile = container.path("build").path("dockerfile").asText();
            assertThat(dockerfile).isEqualTo("src/main/docker/Dockerfile.${UMBRA_IMAGE_FLAVOUR:-jvm}");
            for (String flavour : List.of("jvm", "native")) {
                Path file = ROOT.resolve(service.module()).resolve(dockerfile.replace("${UMBRA_IMAGE_FLAVOUR:-jvm}", flavour));
                Matcher expose = EXPOSE.matcher(Files.readString(file));
                assertThat(expose.find()).as("%s exposes its ports", file).isTrue();
                assertThat(Arrays.stream(expose.group(1).trim().split(" +")).map(Integer::parseInt).collect(Collectors.toSet()))
                        .as(file.toString()).isEqualTo(configuration.ports(service));
                assertThat(Files.readString(file)).as("%s runs as the user of the Kubernetes manifests", file)
                        .contains("USER " + KubernetesResources.RUN_AS_USER);
            }
            assertThat(container.path("healthcheck").path("test").toString()).as(service.module())
                    .contains("/dev/tcp/127.0.0.1/" + service.managementPort()).contains("GET /q/health/ready");
            assertThat(container.path("depends_on").path("postgres").path("condition").asText()).isEqualTo("service_healthy");
            assertThat(container.path("depends_on").path("kafka-topics").path("condition").asText())
                    .isEqualTo("service_completed_successfully");
        }
    }

    @Test
    void everyVariableAServiceIsGivenIsOneItReads() throws IOException {
        ServiceConfiguration configuration = new ServiceConfiguration(ROOT);
        for (UmbraService service : ServiceRegistry.SERVICES) {
            Map<String, String> environment = environment(service(service.module()));
            Set<String> known = new LinkedHashSet<>(configuration.variables(service));
            // Quarkus' own: the file of secrets the "secrets" service made for this service
            known.add("QUARKUS_CONFIG_LOCATIONS");
            assertThat(environment.keySet()).as(service.module()).allSatisfy(variable -> assertThat(known).contains(variable));
            assertThat(environment).as(service.module())
                    .containsEntry("QUARKUS_CONFIG_LOCATIONS", "file:/run/umbra/" + service.name() + ".properties")
                    .containsEntry("QUARKUS_DATASOURCE_REACTIVE_URL", "postgresql://postgres:5432/" + service.database())
                    .containsEntry("QUARKUS_DATASOURCE_JDBC_URL", "jdbc:postgresql://postgres:5432/" + service.database())
                    .containsEntry("QUARKUS_DATASOURCE_USERNAME", PostgresServer.serviceRoleName(service.database()))
                    .containsEntry("QUARKUS_FLYWAY_USERNAME", "umbra")
                    .containsKeys("KAFKA_BOOTSTRAP_SERVERS", "UMBRA_JWT_ISSUER", "UMBRA_JWT_AUDIENCE", "UMBRA_JWT_PUBLIC_KEY");
            assertThat(environment.get("UMBRA_JWT_PUBLIC_KEY")).startsWith("file:/run/umbra/");
            assertThat(secrets.resolve(environment.get("UMBRA_JWT_PUBLIC_KEY").substring("file:/run/umbra/".length()))).exists();

            Properties secretSettings = new Properties();
            secretSettings.load(new StringReader(Files.readString(secrets.resolve(service.name() + ".properties"))));
            assertThat(secretSettings.stringPropertyNames()).as("the secrets of %s", service.module())
                    .contains("quarkus.datasource.password", "quarkus.flyway.password")
                    .allSatisfy(key -> assertThat(known).contains(ServiceConfiguration.environmentName(key)));
            Map<String, String> aliases = configuration.readFromVariables(service);
            Set<String> given = new LinkedHashSet<>(environment.keySet());
            secretSettings.stringPropertyNames().forEach(key -> given.add(ServiceConfiguration.environmentName(key)));
            // what devstack gives a service that the service reads, compose gives it too (except what only the
            // local run and the tests want: the clock control, Kafka timings for services killed on purpose)
            configuration.devstackSettings().stream().map(ServiceConfiguration::environmentName)
                    .filter(known::contains).filter(v -> !DEVSTACK_ONLY.contains(v))
                    .forEach(variable -> assertThat(given).as("%s is given %s", service.module(), variable)
                            .containsAnyOf(variable, aliases.getOrDefault(variable, variable)));

            environment.forEach((variable, value) -> {
                if (variable.endsWith("_URL") || variable.equals("KAFKA_BOOTSTRAP_SERVERS")) {
                    URI uri = URI.create(value.replaceFirst("^jdbc:", "").replaceFirst("^([a-z0-9-]+:\\d+)$", "kafka://$1"));
                    assertThat(services.has(uri.getHost())).as("%s: %s names compose service %s", service.module(), variable, uri.getHost()).isTrue();
                    assertThat(exposedPorts(uri.getHost())).as("%s: %s", service.module(), variable).contains(uri.getPort());
                }
            });
        }
    }

    @Test
    void connectorsAreTheFilesOfDeployConnectorsAndReachTheirDatabase() throws IOException {
        JsonNode registrar = service("connectors");
        assertThat(registrar.path("volumes").toString()).contains("./deploy/connectors:/connectors:ro");
        Set<String> databases = createdDatabases();
        assertThat(databases).isEqualTo(ServiceRegistry.SERVICES.stream().map(UmbraService::database).collect(Collectors.toSet()));
        String connectEnvironment = Files.readString(secrets.resolve("connect.env"));
        assertThat(service("connect").path("entrypoint").toString()).contains(". /run/umbra/connect.env");
        assertThat(environment(service("connect"))).containsEntry("CONNECT_CONFIG_PROVIDERS", "env");
        for (Path file : KubernetesResources.connectorFiles(ROOT)) {
            JsonNode config = KubernetesResources.connectorFile(file).path("config");
            assertThat(services.has(config.path("database.hostname").asText())).as(file.toString()).isTrue();
            assertThat(databases).contains(config.path("database.dbname").asText());
            assertThat(config.path("database.user").asText()).isEqualTo(environment(service("postgres")).get("POSTGRES_USER"));
            Matcher reference = ENV_REFERENCE.matcher(config.path("database.password").asText());
            assertThat(reference.matches()).as(file.toString()).isTrue();
            assertThat(connectEnvironment).as("connect.env exports %s", reference.group(1)).contains("export " + reference.group(1) + "=");
        }
        for (UmbraService service : ServiceRegistry.SERVICES.stream().filter(UmbraService::hasOutbox).toList()) {
            assertThat(registrar.path("depends_on").path(service.module()).path("condition").asText())
                    .as("connectors wait for %s's migration", service.module()).isEqualTo("service_healthy");
        }
        assertThat(Files.readString(ROOT.resolve("deploy/compose/register-connectors.sh"))).contains("/connectors/*.json");
    }

    /** register-connectors.sh cuts each file by lines (no JSON tool in its image): the name on line 2, the configuration after it. */
    @Test
    void theRegistrarReadsEachConnectorFileAsItIsLaidOut() throws IOException {
        ObjectMapper json = new ObjectMapper();
        for (UmbraService service : ServiceRegistry.SERVICES.stream().filter(UmbraService::hasOutbox).toList()) {
            Path file = ROOT.resolve("deploy/connectors").resolve(OutboxConnectors.fileName(service));
            List<String> lines = Files.readAllLines(file);
            JsonNode whole = json.readTree(file.toFile());
            assertThat(lines.get(1)).isEqualTo("  \"name\": \"" + whole.path("name").asText() + "\",");
            assertThat(json.readTree("{" + String.join("\n", lines.subList(3, lines.size() - 1)))).isEqualTo(whole.path("config"));
        }
    }

    @Test
    void everyCatalogueTopicAndItsDeadLettersAreCreated() {
        String command = service("kafka-topics").path("command").toString();
        Matcher loop = Pattern.compile("for topic in ([^;]+);").matcher(command);
        assertThat(loop.find()).isTrue();
        Set<String> expected = new LinkedHashSet<>();
        EventCatalog.entries().stream().map(e -> Topics.of(e.aggregateType())).distinct()
                .forEach(topic -> expected.addAll(List.of(topic, Topics.deadLetterOf(topic))));
        Set<String> created = new LinkedHashSet<>();
        Set.of(loop.group(1).trim().split(" +")).forEach(topic -> created.addAll(List.of(topic, Topics.deadLetterOf(topic))));
        assertThat(created).isEqualTo(expected);
        assertThat(command).contains("--topic \\\"$$topic\\\" --partitions " + KubernetesResources.partitions(ROOT))
                .contains("--topic \\\"$$topic.dlq\\\" --partitions " + KubernetesResources.partitions(ROOT) + " --replication-factor 1 --config retention.ms="
                        + Topics.DEAD_LETTER_RETENTION.toMillis());

        Map<String, String> ui = environment(service("kafka-ui"));
        assertThat(ui).containsEntry("KAFKA_CLUSTERS_0_BOOTSTRAPSERVERS", "kafka:9092")
                .containsEntry("KAFKA_CLUSTERS_0_KAFKACONNECT_0_ADDRESS", "http://connect:8083");
    }

    @Test
    void imagesAreTheVersionsDevstackRuns() throws IOException {
        String kafka = version("devstack/kafka-classpath/pom.xml", "kafka_2.13");
        String debezium = version("devstack/connect-classpath/pom.xml", "debezium-connector-postgres");
        assertThat(service("kafka").path("image").asText()).isEqualTo("apache/kafka:" + kafka);
        assertThat(service("kafka-topics").path("image").asText()).isEqualTo("apache/kafka:" + kafka);
        assertThat(service("connect").path("image").asText()).isEqualTo("quay.io/debezium/connect:" + debezium);
        assertThat(Files.readString(ROOT.resolve("deploy/k8s/base/kafka/connect.yaml")))
                .contains("debezium-connector-postgres/" + debezium + "/debezium-connector-postgres-" + debezium + "-plugin.tar.gz");
    }

    @Test
    void everyDependencyExistsAndEveryMountedFileIsInTheRepository() throws IOException {
        services.fields().forEachRemaining(entry -> {
            entry.getValue().path("depends_on").fields().forEachRemaining(dependency -> {
                assertThat(services.has(dependency.getKey())).as("%s depends on %s", entry.getKey(), dependency.getKey()).isTrue();
                if (dependency.getValue().path("condition").asText().equals("service_healthy")) {
                    assertThat(service(dependency.getKey()).has("healthcheck")).as("%s has a health check", dependency.getKey()).isTrue();
                }
            });
            for (JsonNode volume : entry.getValue().path("volumes")) {
                String source = volume.asText().split(":")[0];
                if (source.startsWith("./")) {
                    String path = source.substring(2);
                    if (MOUNTED_FROM_OBSERVABILITY.stream().noneMatch(path::startsWith) || Files.exists(ROOT.resolve(path))) {
                        assertThat(ROOT.resolve(path)).as("%s mounts %s", entry.getKey(), path).exists();
                    }
                } else {
                    assertThat(compose.path("volumes").has(source)).as("%s uses volume %s", entry.getKey(), source).isTrue();
                }
            }
        });
        Path prometheus = ROOT.resolve("deploy/prometheus/prometheus.yml");
        if (Files.exists(prometheus)) {
            Set<String> targets = new LinkedHashSet<>();
            Yaml.document(prometheus).path("scrape_configs").forEach(job -> job.path("static_configs")
                    .forEach(config -> config.path("targets").forEach(target -> targets.add(target.asText()))));
            assertThat(targets).isEqualTo(ServiceRegistry.SERVICES.stream().map(s -> s.module() + ":" + s.managementPort())
                    .collect(Collectors.toSet()));
            targets.forEach(target -> assertThat(services.has(target.split(":")[0])).isTrue());
        }
    }

    @Test
    void postgresMakesEachServicesRoleWithThePasswordItsServiceLogsInWith() throws IOException {
        assertThat(Files.readString(ROOT.resolve("deploy/compose/postgres-init.sql"))).contains("\\i /run/umbra/service-roles.sql");
        assertThat(service("postgres").path("volumes").toString()).contains("secrets:/run/umbra");
        String roles = Files.readString(secrets.resolve("service-roles.sql"));
        String ownerPassword = Files.readString(secrets.resolve("db-password"));
        for (UmbraService service : ServiceRegistry.SERVICES) {
            Properties settings = new Properties();
            settings.load(new StringReader(Files.readString(secrets.resolve(service.name() + ".properties"))));
            assertThat(roles).as(service.name()).contains("CREATE ROLE " + PostgresServer.serviceRoleName(service.database())
                    + " LOGIN PASSWORD '" + settings.getProperty("quarkus.datasource.password") + "';");
            assertThat(settings.getProperty("quarkus.flyway.password")).as(service.name()).isEqualTo(ownerPassword);
            assertThat(settings.getProperty("quarkus.datasource.password")).as(service.name()).isNotEqualTo(ownerPassword);
        }
    }

    @Test
    void noSecretValueIsInTheFile() throws IOException {
        String text = Files.readString(ROOT.resolve("docker-compose.yml"));
        for (String file : List.of("db-password", "connect.env", "sandboxes.env")) {
            for (String line : Files.readAllLines(secrets.resolve(file))) {
                assertThat(text).doesNotContain(line.replaceFirst("^export [A-Z0-9_]+=", ""));
            }
        }
        Pattern secretish = Pattern.compile(".*(PASSWORD|SECRET|TOKEN)$");
        services.fields().forEachRemaining(entry -> environment(entry.getValue()).keySet().forEach(variable ->
                assertThat(variable).as("%s: secrets come from the secrets volume", entry.getKey()).doesNotMatch(secretish)));
    }

    private static Set<Integer> publishedPorts(JsonNode container) {
        Set<Integer> ports = new LinkedHashSet<>();
        for (JsonNode mapping : container.path("ports")) {
            String[] parts = mapping.asText().split(":");
            assertThat(parts[0]).as("published on the same port").isEqualTo(parts[1]);
            ports.add(Integer.parseInt(parts[1]));
        }
        return ports;
    }

    /** The ports a compose service listens on, as far as this file says: published ones, its sandbox's, or a server's well-known one. */
    private static Set<Integer> exposedPorts(String name) {
        Set<Integer> ports = new LinkedHashSet<>(publishedPorts(service(name)));
        environment(service(name)).forEach((variable, value) -> {
            if (variable.startsWith("SANDBOX_") && variable.endsWith("PORT")) {
                ports.add(Integer.parseInt(value));
            }
        });
        Matcher listener = Pattern.compile("PLAINTEXT://:(\\d+)").matcher(environment(service(name)).getOrDefault("KAFKA_LISTENERS", ""));
        if (listener.find()) {
            ports.add(Integer.parseInt(listener.group(1)));
        }
        return ports;
    }

    private static Set<String> createdDatabases() throws IOException {
        Matcher create = Pattern.compile("(?im)^CREATE DATABASE ([a-z_]+);").matcher(Files.readString(ROOT.resolve("deploy/compose/postgres-init.sql")));
        Set<String> databases = new LinkedHashSet<>();
        while (create.find()) {
            databases.add(create.group(1));
        }
        assertThat(service("postgres").path("volumes").toString()).contains("./deploy/compose/postgres-init.sql:/docker-entrypoint-initdb.d/");
        return databases;
    }

    private static String version(String pom, String artifactId) throws IOException {
        Matcher version = Pattern.compile("<artifactId>" + artifactId + "</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(Files.readString(ROOT.resolve(pom)));
        assertThat(version.find()).as("%s in %s", artifactId, pom).isTrue();
        return version.group(1);
    }

    private static JsonNode service(String name) {
        JsonNode service = services.path(name);
        assertThat(service.isMissingNode()).as("compose service %s", name).isFalse();
        return service;
    }

    private static Map<String, String> environment(JsonNode service) {
        Map<String, String> environment = new LinkedHashMap<>();
        service.path("environment").fields().forEachRemaining(e -> environment.put(e.getKey(), e.getValue().asText()));
        return environment;
    }
}
