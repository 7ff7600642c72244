package dev.umbra.audit.masking;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/** Masks the secret-looking fields of a payload, at any depth, and says which it masked. */
public final class PayloadMasking {

    /** The payload as it may be stored, and the JSON paths ({@code /a/0/b}) of the values it no longer holds. */
    public record Masked(JsonNode payload, List<String> maskedFields) {
        public boolean isMasked() {
            return !maskedFields.isEmpty();
        }
    }

    private final Pattern fieldNames;
    private final TextNode replacement;

    public PayloadMasking(String fieldNames, String replacement) {
        this.fieldNames = Pattern.compile(fieldNames);
        this.replacement = TextNode.valueOf(replacement);
    }

    public static PayloadMasking of(MaskingSettings settings) {
        return new PayloadMasking(settings.fieldNames(), settings.replacement());
    }

    public Masked mask(JsonNode payload) {
        JsonNode copy = payload.deepCopy();
        List<String> masked = new ArrayList<>();
        maskWithin(copy, "", masked);
        return new Masked(copy, List.copyOf(masked));
    }

    boolean isSecret(String fieldName) {
        return fieldNames.matcher(normalised(fieldName)).matches();
    }

    private void maskWithin(JsonNode node, String path, List<String> masked) {
        if (node instanceof ObjectNode object) {
            for (Iterator<Map.Entry<String, JsonNode>> fields = object.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                String fieldPath = path + "/" + field.getKey();
                if (isSecret(field.getKey()) && !field.getValue().isNull()) {
                    field.setValue(replacement);
                    masked.add(fieldPath);
                } else {
                    maskWithin(field.getValue(), fieldPath, masked);
                }
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                maskWithin(array.get(i), path + "/" + i, masked);
            }
        }
    }

    private static String normalised(String fieldName) {
        return fieldName.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
    }
}
