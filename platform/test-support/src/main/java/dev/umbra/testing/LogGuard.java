package dev.umbra.testing;

import java.lang.annotation.Annotation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when our loggers, Hibernate, Vert.x, SmallRye, Quarkus or the Kafka clients wrote
 * an ERROR, or a WARN the class did not declare with {@link ExpectedLog}, while it ran: a green test
 * over a log full of errors is not a pass. Nor may PostgreSQL have refused a statement (an ERROR, FATAL or
 * PANIC in devstack's server log, once {@link DevstackResource} has started it) but for lost races and what
 * the class declares under category {@link LogLines#POSTGRESQL}: a retry can hide a refused statement from the
 * service's log. Registered for every test class by JUnit's extension autodetection (see the service parent's
 * Surefire and Failsafe settings); it reads the log file that the platform's test profile writes.
 */
public class LogGuard implements BeforeAllCallback, AfterAllCallback {

    /** Where the platform's test profile writes each test JVM's log (quarkus.log.file.path). */
    public static final Path TEST_LOG = Path.of("target", "quarkus-test.log");

    /** The system property in which {@link DevstackResource} names PostgreSQL's log for this JVM. */
    static final String SERVER_LOG_PROPERTY = "umbra.devstack.postgres-log";

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(LogGuard.class);

    /**
     * The class's {@link ExpectedLog}s, read by name: a {@code @QuarkusTest} class is loaded by Quarkus'
     * class loader, whose copy of the annotation type is not this extension's.
     */
    static List<LogLines.Expectation> expectations(Class<?> testClass) {
        List<LogLines.Expectation> expected = new ArrayList<>();
        for (Annotation annotation : testClass.getAnnotations()) {
            String type = annotation.annotationType().getName();
            if (type.equals(ExpectedLog.class.getName())) {
                expected.add(expectation(annotation));
            } else if (type.equals(ExpectedLogs.class.getName())) {
                for (Object each : (Object[]) attribute(annotation, "value")) {
                    expected.add(expectation((Annotation) each));
                }
            }
        }
        return expected;
    }

    private static LogLines.Expectation expectation(Annotation annotation) {
        return new LogLines.Expectation((String) attribute(annotation, "category"), (String) attribute(annotation, "level"),
                (String) attribute(annotation, "message"));
    }

    private static Object attribute(Annotation annotation, String name) {
        try {
            return annotation.annotationType().getMethod(name).invoke(annotation);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read " + name + " of " + annotation, e);
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getStore(NAMESPACE).put("mark", LogLines.mark(TEST_LOG));
        // before the first class's application has started devstack there is no server log yet: that class reads it whole
        serverLog().ifPresent(log -> context.getStore(NAMESPACE).put("serverMark", LogLines.mark(log)));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        long mark = context.getStore(NAMESPACE).get("mark", Long.class);
        List<LogLines.Expectation> expected = expectations(context.getRequiredTestClass());
        List<LogLines.Line> unexpected = new ArrayList<>(LogLines.unexpected(TEST_LOG, mark, expected));
        Long serverMark = context.getStore(NAMESPACE).get("serverMark", Long.class);
        serverLog().ifPresent(log -> unexpected.addAll(LogLines.unexpectedInServerLog(log, serverMark == null ? 0 : serverMark, expected)));
        if (!unexpected.isEmpty()) {
            throw new AssertionError(context.getRequiredTestClass().getSimpleName() + " logged " + unexpected.size()
                    + " unexpected WARN/ERROR line(s), or PostgreSQL refused statements (declare deliberate ones with"
                    + " @ExpectedLog, PostgreSQL's under category \"" + LogLines.POSTGRESQL + "\"):\n  "
                    + String.join("\n  ", unexpected.stream().limit(20).map(Object::toString).toList()));
        }
    }

    private static Optional<Path> serverLog() {
        return Optional.ofNullable(System.getProperty(SERVER_LOG_PROPERTY)).map(Path::of);
    }
}
