package dev.umbra.testing;

import dev.umbra.devstack.Devstack;
import dev.umbra.devstack.DiscordSandbox;
import dev.umbra.devstack.PaymentGatewaySandbox;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.lang.reflect.Field;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Points the service under test at the devstack of this JVM (started once, shared by every test
 * class) and at its own database, named by the {@code database} argument. The service's reactive
 * pool reaches Postgres through a {@link TcpProxy} ({@link #postgresProxy()}), so that a test can
 * take the database away and give it back. Always, not per test class: test classes with the same
 * resources share one application, and a different argument would cost a restart.
 *
 * <p>With the argument {@code outbox} (a service's name) the service's connector streams the database's
 * outbox to Kafka from the first test on, once the service has migrated it. A test's fields marked
 * {@link InjectDevstack} get what it works with (the types listed there).
 */
public class DevstackResource implements QuarkusTestResourceLifecycleManager {

    private static volatile TcpProxy postgresProxy;

    private static final List<Class<?>> INJECTED = List.of(Database.class, InboxProbe.class, TcpProxy.class, Devstack.class,
            PaymentGatewaySandbox.class, DiscordSandbox.class);

    private String database;
    private String outboxOf;

    @Override
    public void init(Map<String, String> initArgs) {
        database = initArgs.get("database");
        if (database == null) {
            throw new IllegalArgumentException("DevstackResource needs the argument 'database'");
        }
        outboxOf = initArgs.get("outbox");
        if (initArgs.containsKey("postgres-proxy")) {
            throw new IllegalArgumentException("DevstackResource always proxies Postgres: drop the argument 'postgres-proxy'");
        }
    }

    @Override
    public Map<String, String> start() {
        Devstack stack = Devstack.shared();
        System.setProperty(LogGuard.SERVER_LOG_PROPERTY, stack.postgres().log().toString());
        stack.postgres().createDatabase(database);
        Map<String, String> config = new LinkedHashMap<>(stack.serviceConfig(database));
        postgresProxy = TcpProxy.to(stack.postgres().host(), stack.postgres().port());
        config.put("quarkus.datasource.reactive.url",
                "postgresql://" + stack.postgres().host() + ":" + postgresProxy.port() + "/" + database);
        return config;
    }

    /** Called for each test instance, once the application has started (and so migrated its database). */
    @Override
    public void inject(TestInjector injector) {
        Set<String> marked = new HashSet<>();
        injector.injectIntoFields(null, field -> {
            if (marked(field) && INJECTED.stream().noneMatch(type -> sameType(field, type))) {
                throw new IllegalStateException("@InjectDevstack cannot fill " + field + ": it fills " + INJECTED);
            }
            // Quarkus fills the first matching field only
            if (marked(field) && !marked.add(field.getType().getName())) {
                throw new IllegalStateException("@InjectDevstack fills one field of each type: " + field + " is a second");
            }
            return false;
        });
        Devstack stack = Devstack.shared();
        if (outboxOf != null) {
            stack.streamOutbox(outboxOf, database);
        }
        Database db = Database.of(database);
        offer(injector, Database.class, db);
        offer(injector, InboxProbe.class, new InboxProbe(db));
        offer(injector, TcpProxy.class, postgresProxy());
        offer(injector, Devstack.class, stack);
        offer(injector, PaymentGatewaySandbox.class, stack.paymentGateway());
        offer(injector, DiscordSandbox.class, stack.discord());
    }

    private static void offer(TestInjector injector, Class<?> type, Object value) {
        injector.injectIntoFields(value, field -> marked(field) && sameType(field, type));
    }

    private static boolean marked(Field field) {
        return field.isAnnotationPresent(InjectDevstack.class);
    }

    private static boolean sameType(Field field, Class<?> type) {
        return field.getType() == type;
    }

    /** The relay between the running service's reactive pool and Postgres. */
    public static TcpProxy postgresProxy() {
        if (postgresProxy == null) {
            throw new IllegalStateException("no service under test runs with DevstackResource");
        }
        return postgresProxy;
    }

    @Override
    public void stop() {
        // the stack outlives this test class and stops with the JVM
        if (postgresProxy != null) {
            postgresProxy.close();
            postgresProxy = null;
        }
    }
}
