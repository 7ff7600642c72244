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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Masks the secret-looking fields of a payload, at any depth, and says which it masked: by the field's name, and, whatever
 * its name, a text value that holds a card number (15 or 16 digits, in groups or not, that pass the Luhn check: a Discord
 * id has 17 to 20), a JWT or a bearer token, such as one pasted into a refund's reason.
 */
public final class PayloadMasking {

    private static final Pattern CARD_NUMBER = Pattern.compile("(?<![0-9])[0-9](?:[ -]?[0-9]){14,15}(?![0-9])");
    /** A UUID's first groups can be all digits, dashed like a card number: ids are no card data. */
    private static final Pattern UUID_TEXT = Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Pattern JWT = Pattern.compile("eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]*");
    /** A bearer token is long and random: "Bearer authorization header" in an error's text is none. */
    private static final Pattern BEARER = Pattern.compile("(?i)\\bbearer\\s+(?=[A-Za-z0-9._~+/-]*[0-9])[A-Za-z0-9._~+/-]{20,}");

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
                if (!field.getValue().isNull() && (isSecret(field.getKey()) || holdsSecret(field.getValue()))) {
                    field.setValue(replacement);
                    masked.add(fieldPath);
                } else {
                    maskWithin(field.getValue(), fieldPath, masked);
                }
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                if (holdsSecret(array.get(i))) {
                    array.set(i, replacement);
                    masked.add(path + "/" + i);
                } else {
                    maskWithin(array.get(i), path + "/" + i, masked);
                }
            }
        }
    }

    static boolean holdsSecret(JsonNode value) {
        if (!value.isTextual()) {
            return false;
        }
        String text = value.asText();
        if (JWT.matcher(text).find() || BEARER.matcher(text).find()) {
            return true;
        }
        Matcher digits = CARD_NUMBER.matcher(UUID_TEXT.matcher(text).replaceAll(" "));
        while (digits.find()) {
            if (luhn(digits.group().replaceAll("[ -]", ""))) {
                return true;
            }
        }
        return false;
    }

    private static boolean luhn(String number) {
        int sum = 0;
        for (int i = 0; i < number.length(); i++) {
            int digit = number.charAt(number.length() - 1 - i) - '0';
            if (i % 2 == 1) {
                digit *= 2;
                if (digit > 9) {
                    digit -= 9;
                }
            }
            sum += digit;
        }
        return sum % 10 == 0;
    }

    private static String normalised(String fieldName) {
        return fieldName.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
    }
}
