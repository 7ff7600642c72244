package dev.umbra.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The part of kustomize these files use, enough to check what a cluster would receive: resources
 * (files and bases), {@code labels} (metadata only), {@code namespace}, {@code images} and
 * {@code patches} whose patch is a JSON 6902 list (add, replace, remove) and whose target names a kind,
 * optionally a name (a regular expression, as kustomize reads it) and a label selector {@code key=value}.
 * Anything else in a kustomization fails the build, so that a check never passes over what it cannot read.
 */
final class Kustomize {

    private static final List<String> UNDERSTOOD = List.of("apiVersion", "kind", "resources", "labels", "namespace", "images", "patches");

    private Kustomize() {
    }

    static List<ObjectNode> build(Path directory) {
        JsonNode kustomization = Yaml.document(directory.resolve("kustomization.yaml"));
        kustomization.fieldNames().forEachRemaining(field -> {
            if (!UNDERSTOOD.contains(field)) {
                throw new IllegalStateException(directory + ": the check does not understand '" + field + "'");
            }
        });
        List<ObjectNode> resources = new ArrayList<>();
        for (JsonNode entry : kustomization.path("resources")) {
            Path resource = directory.resolve(entry.asText()).normalize();
            if (Files.isDirectory(resource)) {
                resources.addAll(build(resource));
            } else {
                Yaml.documents(resource).forEach(document -> resources.add((ObjectNode) document));
            }
        }
        for (JsonNode labels : kustomization.path("labels")) {
            if (labels.path("includeSelectors").asBoolean() || labels.path("includeTemplates").asBoolean()) {
                throw new IllegalStateException(directory + ": labels beyond metadata are not understood");
            }
            resources.forEach(resource -> labels.path("pairs").fields().forEachRemaining(pair ->
                    metadata(resource).with("labels").set(pair.getKey(), pair.getValue())));
        }
        for (JsonNode patch : kustomization.path("patches")) {
            JsonNode operations = Yaml.MAPPER.valueToTree(parse(patch.path("patch").asText()));
            if (!operations.isArray()) {
                throw new IllegalStateException(directory + ": only JSON 6902 patches are understood");
            }
            List<ObjectNode> targets = resources.stream().filter(resource -> matches(patch.path("target"), resource)).toList();
            if (targets.isEmpty()) {
                throw new IllegalStateException(directory + ": patch " + patch.path("target") + " matches no resource");
            }
            targets.forEach(resource -> operations.forEach(operation -> apply(resource, operation)));
        }
        for (JsonNode image : kustomization.path("images")) {
            // as kustomize does, the init containers' images too
            resources.forEach(resource -> Stream.concat(containers(resource).stream(), initContainers(resource).stream()).forEach(container -> {
                if (container.path("image").asText().equals(image.path("name").asText())) {
                    container.put("image", image.path("newName").asText(image.path("name").asText()) + ":" + image.path("newTag").asText());
                }
            }));
        }
        if (kustomization.has("namespace")) {
            resources.forEach(resource -> metadata(resource).put("namespace", kustomization.path("namespace").asText()));
        }
        return resources;
    }

    /** The containers of a workload's pod template (none for other kinds). */
    static List<ObjectNode> containers(JsonNode resource) {
        List<ObjectNode> containers = new ArrayList<>();
        resource.path("spec").path("template").path("spec").path("containers").forEach(c -> containers.add((ObjectNode) c));
        return containers;
    }

    static List<ObjectNode> initContainers(JsonNode resource) {
        List<ObjectNode> containers = new ArrayList<>();
        resource.path("spec").path("template").path("spec").path("initContainers").forEach(c -> containers.add((ObjectNode) c));
        return containers;
    }

    private static ObjectNode metadata(ObjectNode resource) {
        return resource.with("metadata");
    }

    private static boolean matches(JsonNode target, JsonNode resource) {
        if (!target.path("kind").asText().equals(resource.path("kind").asText())) {
            return false;
        }
        if (target.has("name") && !Pattern.matches(target.path("name").asText(), resource.path("metadata").path("name").asText())) {
            return false;
        }
        if (target.has("labelSelector")) {
            String[] selector = target.path("labelSelector").asText().split("=", 2);
            return resource.path("metadata").path("labels").path(selector[0]).asText().equals(selector[1]);
        }
        return true;
    }

    private static void apply(ObjectNode resource, JsonNode operation) {
        String op = operation.path("op").asText();
        String[] path = operation.path("path").asText().substring(1).split("/");
        JsonNode parent = resource;
        for (int i = 0; i < path.length - 1; i++) {
            parent = parent.isArray() ? parent.path(Integer.parseInt(path[i])) : parent.path(unescape(path[i]));
            if (parent.isMissingNode()) {
                throw new IllegalStateException(operation + ": no such path in " + resource.path("metadata").path("name"));
            }
        }
        String last = unescape(path[path.length - 1]);
        switch (op) {
            case "add", "replace" -> {
                if (op.equals("replace") && (parent.isArray() ? parent.path(Integer.parseInt(last)) : parent.path(last)).isMissingNode()) {
                    throw new IllegalStateException(operation + ": nothing to replace in " + resource.path("metadata").path("name"));
                }
                if (parent instanceof ArrayNode array) {
                    if (last.equals("-")) {
                        array.add(operation.path("value"));
                    } else if (op.equals("add")) {
                        array.insert(Integer.parseInt(last), operation.path("value"));
                    } else {
                        array.set(Integer.parseInt(last), operation.path("value"));
                    }
                } else {
                    ((ObjectNode) parent).set(last, operation.path("value"));
                }
            }
            case "remove" -> {
                if (parent instanceof ArrayNode array) {
                    array.remove(Integer.parseInt(last));
                } else {
                    ((ObjectNode) parent).remove(last);
                }
            }
            default -> throw new IllegalStateException("patch operation " + op + " is not understood");
        }
    }

    private static String unescape(String token) {
        return token.replace("~1", "/").replace("~0", "~");
    }

    private static Object parse(String yaml) {
        try {
            return Yaml.MAPPER.readValue(yaml, Object.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Map<String, Path> overlays(Path root) {
        Path k8s = root.resolve("deploy/k8s");
        return Map.of("base", k8s.resolve("base"), "dev", k8s.resolve("overlays/dev"), "prod", k8s.resolve("overlays/prod"));
    }
}
