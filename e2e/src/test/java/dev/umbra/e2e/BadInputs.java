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
import java.time.Instant;
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

    /**
     * One request: what is wrong with it, where (which decides the answers that refuse it), its path
     * parameters, query, headers, content type and body (null: none).
     */
    record Request(String wrong, Part part, Map<String, String> pathParameters, Map<String, String> query, Map<String, String> headers,
            String contentType, String body) {
    }

    /** Where a request is wrong. */
    enum Part {
        NOTHING, PATH, QUERY, HEADER, BODY, CONTENT_TYPE
    }

    /** Properties whose names say they are instants, for the services that take them as text and parse them themselves. */
    private static final Pattern ID_NAMES = Pattern.compile("id|.*Id");
    private static final Pattern INSTANT_NAMES = Pattern.compile("from|to|at|asOf|knownAt|occurredAt|.*At");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final List<String> NOT_IDS = List.of("not-an-id", "\uD83D\uDCA5", "1".repeat(300), "' or 1=1 --", "-1", "0", " ",
            "..%2F..%2Fetc");
    private static final List<String> WRONG_HEADER_VALUES = List.of("", " ", "a b", "x".repeat(500));
    private static final List<String> WRONG_QUERY_VALUES = List.of("yesterday", "-1", "\uD83D\uDCA5\u2603", "x".repeat(3_000), "' or 1=1 --");
    private static final List<String> PATTERN_BREAKERS = List.of("", " ", "\uD83D\uDCA5 \u2603 \u202E", "' or 1=1 --", "\u0000", "x".repeat(5_000));
    private static final List<String> NOT_JSON_OBJECTS = List.of("{\"", "[]", "42", "\"text\"", "null", "", "{\"a\":");
    private static final int HUGE = 1_000_000;

    private static final Instant INSTANTS_FROM = Instant.parse("2026-11-25T00:00:00Z");

    private final Random random;
    private long instants;

    BadInputs(long seed) {
        this.random = new Random(seed);
    }

    /** The operation's request with nothing wrong in it (ids of the right shape that may name nothing). */
    Request wellFormed(Operation operation) {
        String body = operation.body() == null ? null : valid(operation.schemas(), operation.body()).toString();
        Map<String, String> query = new LinkedHashMap<>();
        operation.parameters().stream().filter(p -> p.in().equals("query") && p.required())
                .forEach(p -> query.put(p.name(), valid(operation.schemas(), p.name(), p.schema()).asText()));
        return new Request("nothing", Part.NOTHING, validPathParameters(operation), query, validHeaders(operation),
                body == null ? null : "application/json", body);
    }

    List<Request> of(Operation operation) {
        List<Request> requests = new ArrayList<>();
        Request base = wellFormed(operation);
        Map<String, String> path = base.pathParameters();
        for (Parameter parameter : operation.parameters()) {
            if (parameter.in().equals("path")) {
                for (String notId : NOT_IDS) {
                    if (accepts(operation.schemas(), parameter.schema(), notId)) {
                        continue;
                    }
                    Map<String, String> wrong = new LinkedHashMap<>(path);
                    wrong.put(parameter.name(), notId);
                    requests.add(new Request("path " + parameter.name() + " = " + shown(notId), Part.PATH, wrong, base.query(), base.headers(),
                            base.contentType(), base.body()));
                }
            }
        }
        for (Parameter parameter : operation.parameters()) {
            if (parameter.in().equals("query")) {
                for (String value : WRONG_QUERY_VALUES) {
                    Map<String, String> query = new LinkedHashMap<>(base.query());
                    query.put(parameter.name(), value);
                    requests.add(new Request("query " + parameter.name() + " = " + shown(value), Part.QUERY, path, query, base.headers(),
                            base.contentType(), base.body()));
                }
            }
            if (parameter.in().equals("header")) {
                for (String value : WRONG_HEADER_VALUES) {
                    if (accepts(operation.schemas(), parameter.schema(), value)) {
                        continue;
                    }
                    Map<String, String> headers = new LinkedHashMap<>(base.headers());
                    headers.put(parameter.name(), value);
                    requests.add(new Request("header " + parameter.name() + " = " + shown(value), Part.HEADER, path, base.query(), headers,
                            base.contentType(), base.body()));
                }
            }
        }
        if (operation.body() == null) {
            return requests;
        }
        for (String notAnObject : NOT_JSON_OBJECTS) {
            requests.add(new Request("body " + shown(notAnObject), Part.BODY, path, base.query(), base.headers(), "application/json", notAnObject));
        }
        requests.add(new Request("no body", Part.BODY, path, base.query(), base.headers(), "application/json", null));
        requests.add(new Request("a text/plain body", Part.CONTENT_TYPE, path, base.query(), base.headers(), "text/plain", base.body()));
        JsonNode schema = operation.body();
        List<String> required = new ArrayList<>();
        schema.path("required").forEach(name -> required.add(name.asText()));
        Iterator<Map.Entry<String, JsonNode>> properties = schema.path("properties").fields();
        while (properties.hasNext()) {
            Map.Entry<String, JsonNode> property = properties.next();
            for (JsonNode wrong : wrongValues(operation.schemas(), property.getKey(), property.getValue())) {
                ObjectNode body = (ObjectNode) valid(operation.schemas(), schema);
                body.set(property.getKey(), wrong);
                requests.add(new Request("body." + property.getKey() + " = " + shown(wrong.toString()), Part.BODY, path, base.query(),
                        base.headers(), "application/json", body.toString()));
            }
            if (required.contains(property.getKey())) {
                ObjectNode missing = (ObjectNode) valid(operation.schemas(), schema);
                missing.remove(property.getKey());
                requests.add(new Request("body without " + property.getKey(), Part.BODY, path, base.query(), base.headers(), "application/json",
                        missing.toString()));
                ObjectNode nulled = (ObjectNode) valid(operation.schemas(), schema);
                nulled.putNull(property.getKey());
                requests.add(new Request("body." + property.getKey() + " = null", Part.BODY, path, base.query(), base.headers(), "application/json",
                        nulled.toString()));
            }
        }
        return requests;
    }

    private Map<String, String> validHeaders(Operation operation) {
        Map<String, String> headers = new LinkedHashMap<>();
        operation.parameters().stream().filter(p -> p.in().equals("header"))
                .forEach(p -> headers.put(p.name(), "sweep-" + UUID.randomUUID()));
        return headers;
    }

    /** Whether the schema could take {@code value} (a pattern it finds, a UUID that parses, or no constraint the sweep knows). */
    private static boolean accepts(Schemas schemas, JsonNode declared, String value) {
        JsonNode schema = schemas.resolve(declared);
        if (schema.path("format").asText("").equals("uuid") || schemaNamed(declared, "UUID")) {
            try {
                UUID.fromString(value);
                return true;
            } catch (IllegalArgumentException notOne) {
                return false;
            }
        }
        if (schema.has("maxLength") && value.length() > schema.get("maxLength").asInt()) {
            return false;
        }
        if (schema.has("pattern")) {
            return Pattern.compile(schema.get("pattern").asText()).matcher(value).find();
        }
        return !value.isBlank();
    }

    /** Well-formed path parameters (an id of the right shape that names nothing, in general). */
    Map<String, String> validPathParameters(Operation operation) {
        Map<String, String> values = new LinkedHashMap<>();
        for (Parameter parameter : operation.parameters()) {
            if (parameter.in().equals("path")) {
                JsonNode schema = operation.schemas().resolve(parameter.schema());
                boolean unconstrained = !schema.has("pattern") && !schema.has("format") && !schema.has("$ref");
                // an id the document does not describe (a checked string): the services' ids are UUIDs or snowflakes with a pattern
                values.put(parameter.name(), unconstrained && ID_NAMES.matcher(parameter.name()).matches() ? UUID.randomUUID().toString()
                        : valid(operation.schemas(), parameter.schema()).asText());
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
            schema.path("properties").fields().forEachRemaining(p -> object.set(p.getKey(), valid(schemas, p.getKey(), p.getValue())));
            return object;
        }
        if (type.equals("array")) {
            ArrayNode items = NODES.arrayNode();
            for (int i = 0; i < schema.path("minItems").asInt(0); i++) {
                items.add(valid(schemas, schema.path("items")));
            }
            return items;
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
            return NODES.textNode(nextInstant());
        }
        if (format.equals("duration") || schemaNamed(declared, "Duration")) {
            return NODES.textNode("PT1S");
        }
        if (schema.has("pattern")) {
            String regex = schema.get("pattern").asText();
            Pattern pattern = Pattern.compile(regex);
            List<String> candidates = new ArrayList<>(List.of(snowflake(), UUID.randomUUID().toString(), "abc-def", "PRO", "sweep", "now"));
            // an alternation of words (an enum kept as a checked string): its first word
            candidates.add(regex.replaceAll("^\\^|\\$$", "").split("\\|")[0]);
            for (String candidate : candidates) {
                if (pattern.matcher(candidate).matches()) {
                    return NODES.textNode(candidate);
                }
            }
        }
        return NODES.textNode("sweep");
    }

    /** A value the schema accepts for the property {@code name}: an instant for a property named like one. */
    JsonNode valid(Schemas schemas, String name, JsonNode declared) {
        JsonNode schema = schemas.resolve(declared);
        if (schema.path("type").asText("").equals("string") && !schema.has("pattern") && !schema.has("format")
                && INSTANT_NAMES.matcher(name).matches()) {
            return NODES.textNode(nextInstant());
        }
        return valid(schemas, declared);
    }

    /** Values of the wrong JSON type for the schema, and strings its length or pattern refuses. */
    List<JsonNode> wrongValues(Schemas schemas, String name, JsonNode declared) {
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
        if (schemaNamed(declared, "Instant") || schemaNamed(declared, "Duration") || schema.path("format").asText("").equals("date-time")
                || type.equals("string") && !schema.has("pattern") && INSTANT_NAMES.matcher(name).matches()) {
            wrong.add(NODES.textNode("yesterday"));
            // an instant Java parses and PostgreSQL cannot store
            wrong.add(NODES.textNode("+10000-01-01T00:00:00Z"));
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

    /** Instants in the order they are asked for, a second apart: a range built from two of them (from, to) is not empty. */
    private String nextInstant() {
        return INSTANTS_FROM.plusSeconds(instants++).toString();
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
