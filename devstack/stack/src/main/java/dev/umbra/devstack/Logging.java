package dev.umbra.devstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** JVM options of the child servers: their log4j2 setup (WARN and above, to the process output) plus the caller's. */
final class Logging {

    private static final String LOG4J2 = """
            status = warn
            appender.console.type = Console
            appender.console.name = out
            appender.console.layout.type = PatternLayout
            appender.console.layout.pattern = %d{HH:mm:ss.SSS} %-5p [%c{1}] %m%n
            rootLogger.level = warn
            rootLogger.appenderRef.out.ref = out
            logger.debezium.name = io.debezium
            logger.debezium.level = info
            """;

    private Logging() {
    }

    static List<String> jvmOptions(Path workDir, List<String> extra) {
        Path config = workDir.resolve("log4j2.properties");
        try {
            if (!Files.exists(config)) {
                Files.writeString(config, LOG4J2);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> options = new ArrayList<>(extra);
        options.add("-Dlog4j2.configurationFile=" + config);
        return options;
    }
}
