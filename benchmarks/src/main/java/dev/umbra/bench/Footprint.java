package dev.umbra.bench;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.LocalSystem;
import dev.umbra.devstack.ServiceProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** What the machine, the stack and the services are: resident memory of each process, versions, the database's durability settings. */
final class Footprint {

    private Footprint() {
    }

    /** Resident set size in MiB (VmRSS) of each service and of devstack's servers; PostgreSQL's is the sum of all its processes. */
    static Map<String, Double> residentMiB(LocalSystem system) {
        Map<String, Double> rss = new LinkedHashMap<>();
        for (ServiceProcess service : system.services()) {
            rss.put(service.name(), rssKiB(service.pid()) / 1024.0);
        }
        ProcessHandle.current().children().forEach(child -> {
            List<String> args = commandLine(child.pid());
            if (args.contains("kafka.Kafka")) {
                rss.put("Kafka broker", rssKiB(child.pid()) / 1024.0);
            } else if (args.contains("org.apache.kafka.connect.cli.ConnectDistributed")) {
                rss.put("Kafka Connect", rssKiB(child.pid()) / 1024.0);
            } else if (!args.isEmpty() && args.get(0).endsWith("postgres")) {
                long total = Stream.concat(Stream.of(child), child.descendants()).mapToLong(p -> rssKiB(p.pid())).sum();
                rss.put("PostgreSQL (all processes)", total / 1024.0);
            }
        });
        return rss;
    }

    static long rssKiB(long pid) {
        try {
            return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream().filter(l -> l.startsWith("VmRSS:"))
                    .mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", ""))).findFirst().orElse(0);
        } catch (IOException e) {
            return 0;
        }
    }

    static List<String> commandLine(long pid) {
        try {
            String raw = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")), StandardCharsets.UTF_8);
            return raw.isEmpty() ? List.of() : Arrays.asList(raw.split("\0"));
        } catch (IOException e) {
            return List.of();
        }
    }

    /** Java, Quarkus, the Kafka broker, Kafka Connect, Debezium's connector, PostgreSQL. */
    static Map<String, String> versions(Devstack stack, Path repoRoot) throws Exception {
        Map<String, String> versions = new LinkedHashMap<>();
        versions.put("Java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        try (Stream<Path> libs = Files.list(repoRoot.resolve("guild-service/target/quarkus-app/lib/main"))) {
            versions.put("Quarkus", libs.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("io.quarkus.quarkus-core-"))
                    .map(n -> n.substring("io.quarkus.quarkus-core-".length(), n.length() - ".jar".length())).findFirst().orElse("?"));
        }
        String kafka = ProcessHandle.current().children().map(p -> commandLine(p.pid())).filter(args -> args.contains("kafka.Kafka"))
                .map(args -> String.join(" ", args)).findFirst().orElse("");
        versions.put("Kafka broker", first(Pattern.compile("kafka_2\\.1\\d-([0-9][^/:]*?)\\.jar"), kafka));
        String connect = get(stack.connect().url() + "/");
        versions.put("Kafka Connect", first(Pattern.compile("\"version\":\"([^\"]+)\""), connect));
        String plugins = get(stack.connect().url() + "/connector-plugins");
        versions.put("Debezium PostgreSQL connector",
                first(Pattern.compile("\"class\":\"io.debezium.connector.postgresql.PostgresConnector\",\"type\":\"source\",\"version\":\"([^\"]+)\""),
                        plugins));
        try (Connection connection = stack.postgres().connect("postgres"); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("show server_version")) {
            rows.next();
            versions.put("PostgreSQL", rows.getString(1));
        }
        return versions;
    }

    /** The server's durability and size settings, as it runs. */
    static Map<String, String> postgresSettings(Devstack stack) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        try (Connection connection = stack.postgres().connect("postgres"); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("select name, setting, unit from pg_settings where name in ('fsync', "
                     + "'synchronous_commit', 'full_page_writes', 'wal_level', 'shared_buffers', 'max_connections', 'wal_sync_method') "
                     + "order by name")) {
            while (rows.next()) {
                String unit = rows.getString(3);
                settings.put(rows.getString(1), rows.getString(2) + (unit == null ? "" : " × " + unit));
            }
        }
        return settings;
    }

    /** The machine: processor count, memory, CPU model. */
    static String machine() throws IOException {
        String memory = Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal:"))
                .map(l -> String.format("%.1f GiB", Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024.0 / 1024.0)).findFirst().orElse("?");
        String cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("?");
        return Runtime.getRuntime().availableProcessors() + " processors (" + cpu + "), " + memory + " memory";
    }

    /** The 1-minute load average. */
    static double load() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException e) {
            return Double.NaN;
        }
    }

    /** Busy time of all processors since boot, in clock ticks ({@code /proc/stat}: everything but idle and iowait). */
    static long busyTicks() {
        try {
            String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < cpu.length && i <= 8; i++) {
                busy += i == 4 || i == 5 ? 0 : Long.parseLong(cpu[i]);
            }
            return busy;
        } catch (IOException e) {
            return -1;
        }
    }

    private static String first(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        return matcher.find() ? matcher.group(1) : "?";
    }

    private static String get(String url) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }
}
