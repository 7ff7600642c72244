package dev.umbra.deploy;

import dev.umbra.devstack.UmbraService;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The settings a service reads, as the environment variables a deployment may set: every key of its
 * application.properties and of the platform's defaults (profile prefixes dropped), every
 * {@code ${VARIABLE:}} those files read, and every setting devstack gives a service
 * ({@code Devstack.serviceConfig}, the one list of what the environment must supply), when the service
 * or the platform reads that setting's prefix, or it belongs to Quarkus, MicroProfile or Kafka.
 */
final class ServiceConfiguration {

    private static final Pattern PROFILE = Pattern.compile("^%[a-z-]+\\.");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Z0-9_]+):");
    private static final Pattern DEVSTACK_SETTING = Pattern.compile("config\\.put\\(\"([a-z0-9.-]+)\"");

    private final Path root;

    ServiceConfiguration(Path root) {
        this.root = root;
    }

    Set<String> variables(UmbraService service) {
        Set<String> variables = new LinkedHashSet<>();
        for (Path file : propertyFiles(service)) {
            Properties properties = load(file);
            for (String key : properties.stringPropertyNames()) {
                variables.add(environmentName(PROFILE.matcher(key).replaceFirst("")));
                Matcher read = VARIABLE.matcher(properties.getProperty(key));
                while (read.find()) {
                    variables.add(read.group(1));
                }
            }
        }
        String sources = sources(root.resolve(service.module() + "/src/main")) + sources(root.resolve("platform/runtime/src/main"));
        for (String setting : devstackSettings()) {
            if (setting.startsWith("quarkus.") || setting.startsWith("mp.") || setting.startsWith("kafka.") || sources.contains(groupOf(setting))) {
                variables.add(environmentName(setting));
            }
        }
        return variables;
    }

    /** Settings whose value is read from a variable ({@code mp.jwt.verify.issuer=${UMBRA_JWT_ISSUER:}}): setting name as a variable, the variable. */
    Map<String, String> readFromVariables(UmbraService service) {
        Map<String, String> aliases = new LinkedHashMap<>();
        for (Path file : propertyFiles(service)) {
            Properties properties = load(file);
            for (String key : properties.stringPropertyNames()) {
                Matcher read = VARIABLE.matcher(properties.getProperty(key));
                if (!key.startsWith("%") && read.find()) {
                    aliases.put(environmentName(key), read.group(1));
                }
            }
        }
        return aliases;
    }

    /** The ports a service listens on: its API and its management interface. */
    Set<Integer> ports(UmbraService service) {
        Properties properties = load(root.resolve(service.module() + "/src/main/resources/application.properties"));
        return Set.of(Integer.parseInt(properties.getProperty("quarkus.http.port")),
                Integer.parseInt(properties.getProperty("quarkus.management.port")));
    }

    Set<String> devstackSettings() {
        Set<String> settings = new LinkedHashSet<>();
        Matcher put = DEVSTACK_SETTING.matcher(read(root.resolve("devstack/stack/src/main/java/dev/umbra/devstack/Devstack.java")));
        while (put.find()) {
            settings.add(put.group(1));
        }
        if (settings.size() < 5) {
            throw new IllegalStateException("Devstack.serviceConfig no longer reads as expected: " + settings);
        }
        return settings;
    }

    /** The first two segments of a setting, its group ({@code umbra.discord} of {@code umbra.discord.bot-token}). */
    private static String groupOf(String setting) {
        String[] segments = setting.split("\\.");
        return segments.length < 2 ? setting : segments[0] + "." + segments[1];
    }

    /** Quarkus reads {@code a.b-c} from the environment variable {@code A_B_C}. */
    static String environmentName(String property) {
        return property.toUpperCase(Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }

    private Set<Path> propertyFiles(UmbraService service) {
        return Set.of(root.resolve(service.module() + "/src/main/resources/application.properties"),
                root.resolve("platform/runtime/src/main/resources/META-INF/microprofile-config.properties"));
    }

    private static Properties load(Path file) {
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(read(file)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties;
    }

    private static String sources(Path folder) {
        try (Stream<Path> files = Files.walk(folder)) {
            StringBuilder text = new StringBuilder();
            files.filter(Files::isRegularFile).filter(f -> f.toString().endsWith(".java") || f.toString().endsWith(".properties"))
                    .forEach(f -> text.append(read(f)));
            return text.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
