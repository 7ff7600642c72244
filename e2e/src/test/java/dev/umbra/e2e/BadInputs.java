package dev.umbra.e2e;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.umbra.e2e.ApiOperations.Operation;
import dev.umbra.e2e.ApiOperations.Parameter;
import dev.umbra.e2e.ApiOperations.Schemas;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Requests generated from an operation's schemas (seeded: a failure names its seed and replays), each
 * wrong in exactly one place while everything else is well-formed: a path parameter that is no id, a
 * query parameter of the wrong kind, a body that is not JSON or of the wrong JSON type, one property of
 * the wrong type, missing, too long, huge, or breaking its pattern (unicode, quotes, blanks), a body
 * that is not JSON at all by its content type. A value counts as breaking a pattern only when the
 * pattern finds nothing in it — OpenAPI patterns are unanchored, the services' are anchored — so
 * every request here is invalid by construction and must be refused.
 */
final class BadInputs {

    /** One request: what is wrong with it, its path parameters, query, content type and body (null: none). */
    record Request(String wrong, Map<String, String> pathParameters, Map<String, String> query, String contentType, String body) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final List<String> NOT_IDS = List.of("not-an-id", "\uD83D\uDCA5", "1".repeat(300), "' or 1=1 --", "-1", "0", " ",
            "..%2F..%2Fetc");
    private static final List<String> WRONG_QUERY_VALUES = List.of("yesterday", "-1", "\uD83D\uDCA5\u2603", "x".repeat(3_000), "' or 1=1 --");
    private static final List<String> PATTERN_BREAKERS = List.of("", " ", "\uD83D\uDCA5 \u2603 \u202E", "' or 1=1 --", "\u0000", "x".repeat(5_000));
    private static final List<String> NOT_JSON_OBJECTS = List.of("{\"", "[]", "42", "\"text\"", "null", "", "{\"a\":");
    private static final int HUGE = 1_000_000;

    private final Random random;

    BadInputs(long seed) {
        this.random = new Random(seed);
    }

    List<Request> of(Operation operation) {
        List<Request> requests = new ArrayList<>();
        Map<String, String> path = validPathParameters(operation);
        for (Parameter parameter : operation.parameters()) {
            if (parameter.in().equals("path")) {
                for (String notId : NOT_IDS) {
                    Map<String, String> wrong = new LinkedHashMap<>(path);
                    wrong.put(parameter.name(), notId);
                    requests.add(new Request("path " + parameter.name() + " = " + shown(notId), wrong, Map.of(), null, null));
                }
            }
        }
        String validBody = operation.body() == null ? null : valid(operation.schemas(), operation.body()).toString();
        for (Parameter parameter : operation.parameters()) {
            if (parameter.in().equals("query")) {
                for (String value : WRONG_QUERY_VALUES) {
                    requests.add(new Request("query " + parameter.name() + " = " + shown(value), path, Map.of(parameter.name(), value),
                            validBody == null ? null : "application/json", validBody));
                }
            }
        }
        if (operation.body() == null) {
            return requests;
        }
        for (String notAnObject : NOT_JSON_OBJECTS) {
            requests.add(new Request("body " + shown(notAnObject), path, Map.of(), "application/json", notAnObject));
        }
        requests.add(new Request("no body", path, Map.of(), "application/json", null));
        requests.add(new Request("a text/plain body", path, Map.of(), "text/plain", validBody));
        JsonNode schema = operation.body();
        List<String> required = new ArrayList<>();
        schema.path("required").forEach(name -> required.add(name.asText()));
        Iterator<Map.Entry<String, JsonNode>> properties = schema.path("properties").fields();
        while (properties.hasNext()) {
            Map.Entry<String, JsonNode> property = properties.next();
            for (JsonNode wrong : wrongValues(operation.schemas(), property.getValue())) {
                ObjectNode body = (ObjectNode) valid(operation.schemas(), schema);
                body.set(property.getKey(), wrong);
                requests.add(new Request("body." + property.getKey() + " = " + shown(wrong.toString()), path, Map.of(), "application/json",
                        body.toString()));
            }
            if (required.contains(property.getKey())) {
                ObjectNode missing = (ObjectNode) valid(operation.schemas(), schema);
                missing.remove(property.getKey());
                requests.add(new Request("body without " + property.getKey(), path, Map.of(), "application/json", missing.toString()));
                ObjectNode nulled = (ObjectNode) valid(operation.schemas(), schema);
                nulled.putNull(property.getKey());
                requests.add(new Request("body." + property.getKey() + " = null", path, Map.of(), "application/json", nulled.toString()));
            }
        }
        return requests;
    }

    /** Well-formed path parameters (an id of the right shape that names nothing, in general). */
    Map<String, String> validPathParameters(Operation operation) {
        Map<String, String> values = new LinkedHashMap<>();
        for (Parameter parameter : operation.parameters()) {
            if (parameter.in().equals("path")) {
                values.put(parameter.name(), valid(operation.schemas(), parameter.schema()).asText());
            }
        }
        return values;
    }

    /** A value the schema accepts. */
    JsonNode valid(Schemas schemas, JsonNode declared) {
        JsonNode schema = schemas.resolve(declared);
        if (schema.has("enum")) {
            return schema.get("enum").get(0);
        }
        String type = schema.path("type").asText("");
        String format = schema.path("format").asText("");
        if (type.equals("object") || schema.has("properties")) {
            ObjectNode object = NODES.objectNode();
            schema.path("properties").fields().forEachRemaining(p -> object.set(p.getKey(), valid(schemas, p.getValue())));
            return object;
        }
        if (type.equals("array")) {
            return NODES.arrayNode();
        }
        if (type.equals("integer") || type.equals("number")) {
            return NODES.numberNode(Math.max(1, schema.path("minimum").asLong(1)));
        }
        if (type.equals("boolean")) {
            return NODES.booleanNode(true);
        }
        if (format.equals("uuid") || schemaNamed(declared, "UUID")) {
            return NODES.textNode(UUID.randomUUID().toString());
        }
        if (format.equals("date-time") || schemaNamed(declared, "Instant")) {
            return NODES.textNode("2026-11-25T00:00:00Z");
        }
        if (format.equals("duration") || schemaNamed(declared, "Duration")) {
            return NODES.textNode("PT1S");
        }
        if (schema.has("pattern")) {
            Pattern pattern = Pattern.compile(schema.get("pattern").asText());
            for (String candidate : List.of(snowflake(), "abc-def", "PRO", "sweep", "now")) {
                if (pattern.matcher(candidate).matches()) {
                    return NODES.textNode(candidate);
                }
            }
        }
        return NODES.textNode("sweep");
    }

    /** Values of the wrong JSON type for the schema, and strings its length or pattern refuses. */
    List<JsonNode> wrongValues(Schemas schemas, JsonNode declared) {
        JsonNode schema = schemas.resolve(declared);
        List<JsonNode> wrong = new ArrayList<>();
        ObjectNode object = NODES.objectNode().put("nested", 1);
        ArrayNode array = NODES.arrayNode().add(1).add(2);
        String type = schema.path("type").asText("");
        if (type.equals("object") || schema.has("properties")) {
            wrong.add(NODES.textNode("not an object"));
            wrong.add(array);
            return wrong;
        }
        if (type.equals("array")) {
            wrong.add(NODES.textNode("not a list"));
            wrong.add(object);
            return wrong;
        }
        wrong.add(object);
        wrong.add(array);
        if (type.equals("integer") || type.equals("number")) {
            wrong.add(NODES.textNode("abc"));
        }
        if (schema.path("format").asText("").equals("uuid") || schemaNamed(declared, "UUID")) {
            wrong.add(NODES.textNode("not-a-uuid"));
        }
        if (schemaNamed(declared, "Instant") || schemaNamed(declared, "Duration") || schema.path("format").asText("").equals("date-time")) {
            wrong.add(NODES.textNode("yesterday"));
        }
        if (schema.has("pattern")) {
            Pattern pattern = Pattern.compile(schema.get("pattern").asText());
            PATTERN_BREAKERS.stream().filter(value -> !pattern.matcher(value).find()).forEach(value -> wrong.add(NODES.textNode(value)));
        }
        if (schema.has("maxLength")) {
            wrong.add(NODES.textNode("y".repeat(schema.get("maxLength").asInt() + 1)));
            wrong.add(NODES.textNode("z".repeat(HUGE)));
        }
        return wrong;
    }

    private static boolean schemaNamed(JsonNode declared, String name) {
        return declared.path("$ref").asText("").endsWith("/" + name);
    }

    private String snowflake() {
        return Long.toString(100_000_000_000_000_000L + (long) (random.nextDouble() * 800_000_000_000_000_000L));
    }

    private static String shown(String value) {
        String one = value.length() > 24 ? value.substring(0, 24) + "…(" + value.length() + ")" : value;
        try {
            return JSON.writeValueAsString(one);
        } catch (JsonProcessingException e) {
            return one;
        }
    }
}
