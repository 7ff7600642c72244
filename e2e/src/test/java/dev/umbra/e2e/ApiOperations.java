package dev.umbra.e2e;

import static io.restassured.RestAssured.given;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.umbra.devstack.ServiceProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every operation of the running services, read from each one's OpenAPI document (served on its
 * management port), with the roles it allows, its parameters and its JSON body's schema: what the
 * sweeps of {@link ApiSweepIT} are generated from, so that an endpoint added tomorrow is swept too.
 */
final class ApiOperations {

    static final Set<String> ROLES = Set.of("admin", "bot", "user");
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch");

    /** One parameter: its name, where it goes (path, query, header), whether it must be there, and its schema. */
    record Parameter(String name, String in, boolean required, JsonNode schema) {
    }

    /**
     * One operation. {@code roles} empty: no token is asked for (the endpoint authenticates otherwise,
     * or is public). {@code body}: the JSON body's schema, null when it takes none.
     */
    record Operation(ServiceProcess service, String method, String path, Set<String> roles, List<Parameter> parameters, JsonNode body,
            Schemas schemas) {

        boolean mutating() {
            return !method.equals("GET");
        }

        @Override
        public String toString() {
            return service.name() + " " + method + " " + path;
        }
    }

    /** The document's named schemas, to follow {@code $ref}s. */
    record Schemas(JsonNode components) {

        JsonNode resolve(JsonNode schema) {
            JsonNode resolved = schema;
            while (resolved.has("$ref")) {
                String ref = resolved.get("$ref").asText();
                resolved = components.path(ref.substring(ref.lastIndexOf('/') + 1));
            }
            return resolved;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private ApiOperations() {
    }

    static List<Operation> of(List<ServiceProcess> services) {
        List<Operation> operations = new ArrayList<>();
        for (ServiceProcess service : services) {
            JsonNode document = document(service);
            Schemas schemas = new Schemas(document.path("components").path("schemas"));
            Iterator<Map.Entry<String, JsonNode>> paths = document.path("paths").fields();
            while (paths.hasNext()) {
                Map.Entry<String, JsonNode> path = paths.next();
                Iterator<Map.Entry<String, JsonNode>> methods = path.getValue().fields();
                while (methods.hasNext()) {
                    Map.Entry<String, JsonNode> method = methods.next();
                    if (!METHODS.contains(method.getKey())) {
                        continue;
                    }
                    JsonNode operation = method.getValue();
                    List<Parameter> parameters = new ArrayList<>();
                    // parameters shared by the path's operations, then the operation's own
                    for (JsonNode declared : List.of(path.getValue().path("parameters"), operation.path("parameters"))) {
                        declared.forEach(p -> parameters.add(new Parameter(p.get("name").asText(), p.get("in").asText(), p.path("required").asBoolean(),
                                p.path("schema"))));
                    }
                    JsonNode body = operation.path("requestBody").path("content").path("application/json").path("schema");
                    operations.add(new Operation(service, method.getKey().toUpperCase(Locale.ROOT), path.getKey(), roles(operation),
                            parameters, body.isMissingNode() ? null : schemas.resolve(body), schemas));
                }
            }
        }
        return operations;
    }

    private static Set<String> roles(JsonNode operation) {
        Set<String> roles = new TreeSet<>();
        operation.path("security").forEach(requirement -> requirement.fields()
                .forEachRemaining(scheme -> scheme.getValue().forEach(role -> roles.add(role.asText()))));
        return roles;
    }

    private static JsonNode document(ServiceProcess service) {
        String text = given().baseUri(service.managementUrl()).queryParam("format", "json").when().get("/q/openapi")
                .then().statusCode(200).extract().asString();
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
