package dev.umbra.deploy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Reading and writing the YAML of the deployment files: multi-document streams, stable layout. */
public final class Yaml {

    private static final YAMLFactory FACTORY = YAMLFactory.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
            // ConfigMap data and annotations must be strings: "1" stays "1", not the number 1
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .disable(YAMLGenerator.Feature.SPLIT_LINES)
            .build();
    public static final ObjectMapper MAPPER = new ObjectMapper(FACTORY).disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private Yaml() {
    }

    /** Every document of a file, empty ones left out. */
    public static List<JsonNode> documents(Path file) {
        try (YAMLParser parser = FACTORY.createParser(file.toFile())) {
            List<JsonNode> documents = new ArrayList<>();
            MAPPER.readValues(parser, JsonNode.class).forEachRemaining(document -> {
                if (document != null && !document.isNull() && !document.isMissingNode()) {
                    documents.add(document);
                }
            });
            return documents;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    public static JsonNode document(Path file) {
        List<JsonNode> documents = documents(file);
        if (documents.size() != 1) {
            throw new IllegalStateException(file + " has " + documents.size() + " documents, not one");
        }
        return documents.get(0);
    }

    /** Documents separated by {@code ---}, after a comment that says where they come from. */
    public static String write(String header, List<?> documents) {
        return header + documents.stream().map(Yaml::write).map(text -> "---\n" + text).collect(Collectors.joining());
    }

    private static String write(Object document) {
        try {
            return MAPPER.writeValueAsString(document);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void writeFile(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An ordered map from alternating keys and values: resources read in the order Kubernetes users expect. */
    public static Map<String, Object> map(Object... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("keys and values come in pairs");
        }
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}
