package dev.umbra.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;

/**
 * JSON of event payloads: snake_case fields, ISO-8601 instants, and tolerance of fields a newer
 * producer added (a consumer on an older schema version keeps working).
 */
public final class EventCodec {

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    private EventCodec() {
    }

    public static JsonNode toTree(DomainEvent event) {
        return MAPPER.valueToTree(event);
    }

    public static String toJson(DomainEvent event) {
        try {
            return MAPPER.writeValueAsString(event);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise " + event.getClass().getSimpleName(), e);
        }
    }

    public static JsonNode parse(byte[] json) {
        try {
            JsonNode tree = MAPPER.readTree(json);
            if (tree == null || !tree.isObject()) {
                throw new EventDecodingException("payload is not a JSON object");
            }
            return tree;
        } catch (IOException e) {
            throw new EventDecodingException("payload is not valid JSON: " + rootMessage(e), e);
        }
    }

    public static <E extends DomainEvent> E fromTree(JsonNode payload, Class<E> type) {
        try {
            return MAPPER.treeToValue(payload, type);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new EventDecodingException("payload does not fit " + type.getSimpleName() + ": " + rootMessage(e), e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage();
    }
}
