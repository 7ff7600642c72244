package dev.umbra.testing;

import dev.umbra.devstack.Devstack;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Points the service under test at the devstack of this JVM (started once, shared by every test
 * class) and at its own database, named by the {@code database} argument. The service's reactive
 * pool reaches Postgres through a {@link TcpProxy} ({@link #postgresProxy()}), so that a test can
 * take the database away and give it back. Always, not per test class: test classes with the same
 * resources share one application, and a different argument would cost a restart.
 */
public class DevstackResource implements QuarkusTestResourceLifecycleManager {

    private static volatile TcpProxy postgresProxy;

    private String database;

    @Override
    public void init(Map<String, String> initArgs) {
        database = initArgs.get("database");
        if (database == null) {
            throw new IllegalArgumentException("DevstackResource needs the argument 'database'");
        }
        if (initArgs.containsKey("postgres-proxy")) {
            throw new IllegalArgumentException("DevstackResource always proxies Postgres: drop the argument 'postgres-proxy'");
        }
    }

    @Override
    public Map<String, String> start() {
        Devstack stack = Devstack.shared();
        stack.postgres().createDatabase(database);
        Map<String, String> config = new LinkedHashMap<>(stack.serviceConfig(database));
        postgresProxy = TcpProxy.to(stack.postgres().host(), stack.postgres().port());
        config.put("quarkus.datasource.reactive.url",
                "postgresql://" + stack.postgres().host() + ":" + postgresProxy.port() + "/" + database);
        return config;
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
