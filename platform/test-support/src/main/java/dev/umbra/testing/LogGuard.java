package dev.umbra.testing;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when our loggers, Hibernate, Vert.x, SmallRye, Quarkus or the Kafka clients wrote
 * an ERROR, or a WARN the class did not declare with {@link ExpectedLog}, while it ran: a green test
 * over a log full of errors is not a pass. Registered for every test class by JUnit's extension
 * autodetection (see the service parent's Surefire and Failsafe settings); it reads the log file that
 * the platform's test profile writes.
 */
public class LogGuard implements BeforeAllCallback, AfterAllCallback {

    /** Where the platform's test profile writes each test JVM's log (quarkus.log.file.path). */
    public static final Path TEST_LOG = Path.of("target", "quarkus-test.log");

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(LogGuard.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getStore(NAMESPACE).put("mark", LogLines.mark(TEST_LOG));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        long mark = context.getStore(NAMESPACE).get("mark", Long.class);
        List<LogLines.Expectation> expected = Arrays.stream(context.getRequiredTestClass().getAnnotationsByType(ExpectedLog.class))
                .map(e -> new LogLines.Expectation(e.category(), e.level(), e.message()))
                .toList();
        List<LogLines.Line> unexpected = LogLines.unexpected(TEST_LOG, mark, expected);
        if (!unexpected.isEmpty()) {
            throw new AssertionError(context.getRequiredTestClass().getSimpleName() + " logged " + unexpected.size()
                    + " unexpected WARN/ERROR line(s) (declare deliberate ones with @ExpectedLog):\n  "
                    + String.join("\n  ", unexpected.stream().limit(20).map(Object::toString).toList()));
        }
    }
}
