package dev.umbra.testing;

import dev.umbra.devstack.Devstack;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Points the service under test at the devstack of this JVM (started once, shared by every test
 * class) and at its own database, named by the {@code database} argument. With the argument
 * {@code postgres-proxy=true} the service's reactive pool reaches Postgres through a {@link TcpProxy}
 * ({@link #postgresProxy()}), so that a test can take the database away and give it back.
 */
public class DevstackResource implements QuarkusTestResourceLifecycleManager {

    private static volatile TcpProxy postgresProxy;

    private String database;
    private boolean proxied;

    @Override
    public void init(Map<String, String> initArgs) {
        database = initArgs.get("database");
        if (database == null) {
            throw new IllegalArgumentException("DevstackResource needs the argument 'database'");
        }
        proxied = Boolean.parseBoolean(initArgs.getOrDefault("postgres-proxy", "false"));
    }

    @Override
    public Map<String, String> start() {
        Devstack stack = Devstack.shared();
        stack.postgres().createDatabase(database);
        Map<String, String> config = new LinkedHashMap<>(stack.serviceConfig(database));
        if (proxied) {
            postgresProxy = TcpProxy.to(stack.postgres().host(), stack.postgres().port());
            config.put("quarkus.datasource.reactive.url",
                    "postgresql://" + stack.postgres().host() + ":" + postgresProxy.port() + "/" + database);
        }
        return config;
    }

    /** The relay between the service's reactive pool and Postgres, when started with {@code postgres-proxy=true}. */
    public static TcpProxy postgresProxy() {
        if (postgresProxy == null) {
            throw new IllegalStateException("start DevstackResource with postgres-proxy=true");
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
