package dev.umbra.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.umbra.devstack.ServiceRegistry;
import dev.umbra.devstack.UmbraService;
import dev.umbra.events.EventCatalog;
import dev.umbra.events.Topics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** The Kubernetes base and overlays as a cluster would receive them, read with a YAML parser (no cluster here). */
class KubernetesResourcesTest {

    private static final Path ROOT = Path.of(System.getProperty("umbra.repo.root", "..")).toAbsolutePath().normalize();
    private static final Pattern ENV_REFERENCE = Pattern.compile("\\$\\{env:([A-Z0-9_]+)}");

    @Test
    void checkedInResourcesAreWhatTheGeneratorWrites() throws IOException {
        for (Map.Entry<Path, String> file : KubernetesResources.render(ROOT).entrySet()) {
            Path checkedIn = ROOT.resolve(file.getKey());
            assertThat(checkedIn).as("%s is generated; regenerate: %s", file.getKey(), KubernetesResources.REGENERATE).exists();
            assertThat(Files.readString(checkedIn)).as("%s differs from what the generator writes; regenerate: %s",
                    file.getKey(), KubernetesResources.REGENERATE).isEqualTo(file.getValue());
        }
    }

    @TestFactory
    List<DynamicTest> everyRendering() {
        List<DynamicTest> tests = new ArrayList<>();
        new TreeMap<>(Kustomize.overlays(ROOT)).forEach((name, directory) -> {
            List<ObjectNode> resources = Kustomize.build(directory);
            tests.add(DynamicTest.dynamicTest(name + ": every Deployment is probed, bounded, non-root and read-only",
                    () -> everyDeploymentIsSafe(resources)));
            tests.add(DynamicTest.dynamicTest(name + ": every KafkaConnector equals its deploy/connectors file",
                    () -> everyConnectorEqualsItsFile(resources)));
            tests.add(DynamicTest.dynamicTest(name + ": each service listens, is configured and scales as registered",
                    () -> servicesAsRegistered(resources)));
            tests.add(DynamicTest.dynamicTest(name + ": every event topic and its dead letters exist, the connectors' passwords reach Connect",
                    () -> topicsAndConnect(resources)));
            tests.add(DynamicTest.dynamicTest(name + ": no secret value, no resource named twice",
                    () -> noSecretValues(resources)));
        });
        return tests;
    }

    @Test
    void prodsNativeExecutablesHaveABoundedHeapInTheirContainersAndInTheInitContainer() {
        List<ObjectNode> resources = Kustomize.build(Kustomize.overlays(ROOT).get("prod"));
        for (UmbraService service : ServiceRegistry.SERVICES) {
            ObjectNode deployment = named(resources, "Deployment", service.module());
            List<JsonNode> containers = new ArrayList<>(Kustomize.containers(deployment));
            containers.addAll(Kustomize.initContainers(deployment));
            assertThat(containers).as(service.module()).hasSize(2).allSatisfy(container -> {
                assertThat(container.path("args").toString()).as("%s: %s", service.module(), container.path("name")).contains("-Xmx");
                assertThat(container.path("resources").path("limits").path("memory").asText()).isEqualTo("256Mi");
            });
        }
    }

    @Test
    void overlaysDeployImagesFromARegistryWithATag() {
        for (String overlay : List.of("dev", "prod")) {
            List<ObjectNode> resources = Kustomize.build(Kustomize.overlays(ROOT).get(overlay));
            resources.stream().flatMap(r -> Kustomize.containers(r).stream()).forEach(container ->
                    assertThat(container.path("image").asText()).as("%s: image of %s", overlay, container.path("name"))
                            .matches("[a-z0-9.-]+(:\\d+)?/.+:[A-Za-z0-9._-]+"));
            assertThat(resources).allSatisfy(r -> assertThat(r.path("metadata").path("namespace").asText()).isNotEmpty());
            // an ExternalName Service naming itself (its own name in its own namespace) resolves to nothing
            ofKind(resources, "Service").stream().filter(s -> s.path("spec").path("type").asText().equals("ExternalName")).forEach(s ->
                    assertThat(s.path("spec").path("externalName").asText()).as("%s: Service %s", overlay, s.path("metadata").path("name"))
                            .isNotEqualTo(s.path("metadata").path("name").asText() + "." + s.path("metadata").path("namespace").asText()
                                    + ".svc.cluster.local"));
        }
    }

    private static void everyDeploymentIsSafe(List<ObjectNode> resources) {
        List<ObjectNode> deployments = ofKind(resources, "Deployment");
        assertThat(deployments).hasSize(ServiceRegistry.SERVICES.size() + 1);
        for (ObjectNode deployment : deployments) {
            String name = deployment.path("metadata").path("name").asText();
            JsonNode pod = deployment.path("spec").path("template").path("spec");
            assertThat(pod.path("securityContext").path("runAsNonRoot").asBoolean()).as("%s runs as non-root", name).isTrue();
            Set<String> emptyDirs = StreamSupport.stream(pod.path("volumes").spliterator(), false)
                    .filter(v -> v.has("emptyDir")).map(v -> v.path("name").asText()).collect(Collectors.toSet());
            for (JsonNode container : Kustomize.containers(deployment)) {
                for (String probe : List.of("livenessProbe", "readinessProbe")) {
                    assertThat(container.path(probe).path("httpGet").path("path").asText()).as("%s %s", name, probe).isNotEmpty();
                }
                assertThat(container.path("resources").path("requests").path("cpu").asText()).as("%s cpu request", name).isNotEmpty();
                assertThat(container.path("resources").path("requests").path("memory").asText()).as("%s memory request", name).isNotEmpty();
                assertThat(container.path("resources").path("limits").path("memory").asText()).as("%s memory limit", name).isNotEmpty();
                JsonNode security = container.path("securityContext");
                assertThat(security.path("runAsNonRoot").asBoolean()).as("%s container non-root", name).isTrue();
                assertThat(security.path("runAsUser").asLong()).as("%s user", name).isPositive();
                assertThat(security.path("readOnlyRootFilesystem").asBoolean()).as("%s read-only root", name).isTrue();
                assertThat(security.path("allowPrivilegeEscalation").asBoolean(true)).as("%s privilege escalation", name).isFalse();
                assertThat(container.path("volumeMounts")).as("%s writes /tmp to an emptyDir", name)
                        .anySatisfy(m -> {
                            assertThat(m.path("mountPath").asText()).isEqualTo("/tmp");
                            assertThat(emptyDirs).contains(m.path("name").asText());
                        });
            }
        }
    }

    private static void everyConnectorEqualsItsFile(List<ObjectNode> resources) {
        Map<String, JsonNode> files = new LinkedHashMap<>();
        KubernetesResources.connectorFiles(ROOT).forEach(f -> {
            JsonNode file = KubernetesResources.connectorFile(f);
            files.put(file.path("name").asText(), file.path("config"));
        });
        List<ObjectNode> connectors = ofKind(resources, "KafkaConnector");
        assertThat(connectors.stream().map(c -> c.path("metadata").path("name").asText())).containsExactlyInAnyOrderElementsOf(files.keySet());
        for (ObjectNode connector : connectors) {
            JsonNode spec = connector.path("spec");
            Map<String, String> config = new TreeMap<>();
            spec.path("config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
            config.put("connector.class", spec.path("class").asText());
            config.put("tasks.max", spec.path("tasksMax").asText());
            Map<String, String> file = new TreeMap<>();
            files.get(connector.path("metadata").path("name").asText()).fields().forEachRemaining(e -> file.put(e.getKey(), e.getValue().asText()));
            assertThat(config).as("KafkaConnector %s", connector.path("metadata").path("name")).isEqualTo(file);
            assertThat(connector.path("metadata").path("labels").path("strimzi.io/cluster").asText())
                    .isEqualTo(only(resources, "KafkaConnect").path("metadata").path("name").asText());
        }
    }

    private static void servicesAsRegistered(List<ObjectNode> resources) {
        ServiceConfiguration configuration = new ServiceConfiguration(ROOT);
        int partitions = KubernetesResources.partitions(ROOT);
        for (UmbraService service : ServiceRegistry.SERVICES) {
            String name = service.module();
            ObjectNode deployment = named(resources, "Deployment", name);
            JsonNode container = Kustomize.containers(deployment).get(0);
            Map<String, Integer> ports = new LinkedHashMap<>();
            container.path("ports").forEach(p -> ports.put(p.path("name").asText(), p.path("containerPort").asInt()));
            assertThat(ports).as(name).containsEntry("http", service.httpPort()).containsEntry("management", service.managementPort());
            assertThat(Set.copyOf(ports.values())).isEqualTo(configuration.ports(service));
            assertThat(container.path("livenessProbe").path("httpGet").path("path").asText()).isEqualTo("/q/health/live");
            assertThat(container.path("readinessProbe").path("httpGet").path("path").asText()).isEqualTo("/q/health/ready");
            assertThat(container.path("readinessProbe").path("httpGet").path("port").asText()).isEqualTo("management");

            Set<String> known = configuration.variables(service);
            List<String> variables = new ArrayList<>();
            container.path("env").forEach(e -> variables.add(e.path("name").asText()));
            container.path("envFrom").forEach(from -> named(resources, "ConfigMap", from.path("configMapRef").path("name").asText())
                    .path("data").fieldNames().forEachRemaining(variables::add));
            assertThat(variables).as("what %s is given", name).isNotEmpty().allSatisfy(v -> assertThat(known).as(name).contains(v));
            assertThat(variables).as(name).contains("QUARKUS_DATASOURCE_REACTIVE_URL", "QUARKUS_DATASOURCE_USERNAME", "QUARKUS_DATASOURCE_PASSWORD",
                    "KAFKA_BOOTSTRAP_SERVERS", "UMBRA_JWT_ISSUER", "UMBRA_JWT_PUBLIC_KEY", "UMBRA_JWT_AUDIENCE");
            // the service's process never holds the database owner's password: the init container migrates, then exits
            assertThat(variables).as(name).doesNotContain("QUARKUS_FLYWAY_PASSWORD");
            assertThat(container.path("env").toString()).as(name).contains("{\"name\":\"QUARKUS_FLYWAY_MIGRATE_AT_START\",\"value\":\"false\"}");
            List<ObjectNode> initContainers = Kustomize.initContainers(deployment);
            assertThat(initContainers).as(name).singleElement().satisfies(migrate -> {
                assertThat(migrate.path("image").asText()).isEqualTo(container.path("image").asText());
                assertThat(migrate.path("envFrom")).isEqualTo(container.path("envFrom"));
                assertThat(migrate.path("securityContext")).isEqualTo(container.path("securityContext"));
                String migrationEnv = migrate.path("env").toString();
                assertThat(migrationEnv).contains("{\"name\":\"QUARKUS_INIT_AND_EXIT\",\"value\":\"true\"}")
                        .contains("{\"name\":\"QUARKUS_FLYWAY_PASSWORD\",\"valueFrom\":{\"secretKeyRef\":{\"name\":\""
                                + KubernetesResources.databaseSecret(service) + "\",\"key\":\"password\"}}}")
                        .doesNotContain("QUARKUS_FLYWAY_MIGRATE_AT_START");
            });
            assertThat(named(resources, "ConfigMap", name).path("data").path("QUARKUS_FLYWAY_USERNAME").asText()).isEqualTo("umbra");
            // a stop drains: readiness DOWN while the endpoints drop the pod, then the requests in flight, all within the grace period
            JsonNode config = named(resources, "ConfigMap", name).path("data");
            java.time.Duration drain = java.time.Duration.parse(config.path("UMBRA_SHUTDOWN_DELAY").asText())
                    .plus(java.time.Duration.parse(config.path("UMBRA_SHUTDOWN_TIMEOUT").asText()));
            assertThat(drain).as("%s: shutdown delay and timeout", name).isPositive()
                    .isLessThan(java.time.Duration.ofSeconds(deployment.path("spec").path("template").path("spec")
                            .path("terminationGracePeriodSeconds").asLong()));

            JsonNode servicePorts = named(resources, "Service", name).path("spec").path("ports");
            assertThat(servicePorts).extracting(p -> p.path("port").asInt()).containsExactlyInAnyOrder(service.httpPort(), service.managementPort());

            JsonNode autoscaler = named(resources, "HorizontalPodAutoscaler", name).path("spec");
            assertThat(autoscaler.path("scaleTargetRef").path("name").asText()).isEqualTo(name);
            assertThat(autoscaler.path("maxReplicas").asInt()).as("%s scales no further than a topic has partitions", name)
                    .isBetween(autoscaler.path("minReplicas").asInt(), partitions);
            assertThat(deployment.path("spec").has("replicas")).as("%s: the autoscaler alone sets its replicas", name).isFalse();

            JsonNode budget = named(resources, "PodDisruptionBudget", name).path("spec");
            assertThat(budget.path("selector").path("matchLabels"))
                    .isEqualTo(deployment.path("spec").path("selector").path("matchLabels"));
        }
    }

    private static void topicsAndConnect(List<ObjectNode> resources) {
        Set<String> topics = ofKind(resources, "KafkaTopic").stream().map(t -> t.path("spec").path("topicName").asText()).collect(Collectors.toSet());
        int partitions = KubernetesResources.partitions(ROOT);
        EventCatalog.entries().stream().map(e -> Topics.of(e.aggregateType())).distinct()
                .forEach(topic -> assertThat(topics).contains(topic, Topics.deadLetterOf(topic)));
        assertThat(ofKind(resources, "KafkaTopic")).allSatisfy(t -> assertThat(t.path("spec").path("partitions").asInt()).isEqualTo(partitions));
        assertThat(ofKind(resources, "KafkaTopic")).filteredOn(t -> t.path("spec").path("topicName").asText().endsWith(Topics.DEAD_LETTER_SUFFIX))
                .isNotEmpty().allSatisfy(t -> assertThat(t.path("spec").path("config").path("retention.ms").asText())
                        .isEqualTo(Long.toString(Topics.DEAD_LETTER_RETENTION.toMillis())));
        assertThat(ofKind(resources, "KafkaConnector")).isNotEmpty()
                .allSatisfy(c -> assertThat(c.path("spec").path("autoRestart").path("enabled").asBoolean()).as("autoRestart").isTrue());
        int brokers = ofKind(resources, "KafkaNodePool").stream().mapToInt(p -> p.path("spec").path("replicas").asInt()).sum();
        assertThat(ofKind(resources, "KafkaTopic")).allSatisfy(t -> assertThat(t.path("spec").path("replicas").asInt()).isBetween(1, brokers));

        JsonNode connect = only(resources, "KafkaConnect");
        assertThat(connect.path("spec").path("bootstrapServers").asText()).isEqualTo(KubernetesResources.KAFKA_BOOTSTRAP);
        assertThat(connect.path("metadata").path("annotations").path("strimzi.io/use-connector-resources").asText()).isEqualTo("true");
        assertThat(connect.path("spec").path("build").path("plugins").toString()).contains("debezium-connector-postgres");
        Map<String, String> connectEnv = new LinkedHashMap<>();
        connect.path("spec").path("template").path("connectContainer").path("env")
                .forEach(e -> connectEnv.put(e.path("name").asText(), e.path("valueFrom").path("secretKeyRef").path("name").asText()));
        for (UmbraService service : ServiceRegistry.SERVICES.stream().filter(UmbraService::hasOutbox).toList()) {
            String config = named(resources, "KafkaConnector", service.database() + "-outbox").path("spec").path("config").toString();
            Matcher reference = ENV_REFERENCE.matcher(config);
            assertThat(reference.find()).as("the connector of %s reads its password from the environment", service.name()).isTrue();
            assertThat(connectEnv).as("Connect's environment").containsEntry(reference.group(1), KubernetesResources.databaseSecret(service));
        }
        JsonNode ui = named(resources, "ConfigMap", "kafka-ui").path("data");
        assertThat(ui.path("KAFKA_CLUSTERS_0_BOOTSTRAPSERVERS").asText()).isEqualTo(KubernetesResources.KAFKA_BOOTSTRAP);
        assertThat(ui.path("KAFKA_CLUSTERS_0_KAFKACONNECT_0_ADDRESS").asText())
                .isEqualTo("http://" + connect.path("metadata").path("name").asText() + "-connect-api:8083");
    }

    private static void noSecretValues(List<ObjectNode> resources) {
        assertThat(ofKind(resources, "Secret")).as("Secrets come from the operator").isEmpty();
        Pattern secretish = Pattern.compile(".*(PASSWORD|SECRET|TOKEN|KEYS?_\\d+).*");
        resources.stream().flatMap(r -> Kustomize.containers(r).stream()).flatMap(c -> StreamSupport.stream(c.path("env").spliterator(), false))
                .filter(e -> secretish.matcher(e.path("name").asText()).matches())
                .forEach(e -> assertThat(e.has("valueFrom")).as("%s comes from a Secret", e.path("name")).isTrue());
        ofKind(resources, "ConfigMap").forEach(map -> map.path("data").fields().forEachRemaining(entry -> {
            assertThat(entry.getKey()).as("ConfigMap %s", map.path("metadata").path("name")).doesNotMatch(secretish);
            assertThat(entry.getValue().isTextual()).as("ConfigMap %s: %s is a string", map.path("metadata").path("name"), entry.getKey()).isTrue();
        }));
        resources.forEach(r -> r.path("spec").path("template").path("metadata").path("annotations").forEach(value ->
                assertThat(value.isTextual()).as("annotations of %s are strings", r.path("metadata").path("name")).isTrue()));
        assertThat(resources.stream().map(r -> r.path("kind").asText() + "/" + r.path("metadata").path("name").asText()))
                .doesNotHaveDuplicates();
    }

    private static List<ObjectNode> ofKind(List<ObjectNode> resources, String kind) {
        return resources.stream().filter(r -> r.path("kind").asText().equals(kind)).toList();
    }

    private static ObjectNode only(List<ObjectNode> resources, String kind) {
        List<ObjectNode> found = ofKind(resources, kind);
        assertThat(found).as(kind).hasSize(1);
        return found.get(0);
    }

    private static ObjectNode named(List<ObjectNode> resources, String kind, String name) {
        return ofKind(resources, kind).stream().filter(r -> r.path("metadata").path("name").asText().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name));
    }
}
