package dev.umbra.testing;

import dev.umbra.devstack.Devstack;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.util.Map;

/**
 * Points the service under test at the devstack of this JVM (started once, shared by every test
 * class) and at its own database, named by the {@code database} argument.
 */
public class DevstackResource implements QuarkusTestResourceLifecycleManager {

    private String database;

    @Override
    public void init(Map<String, String> initArgs) {
        database = initArgs.get("database");
        if (database == null) {
            throw new IllegalArgumentException("DevstackResource needs the argument 'database'");
        }
    }

    @Override
    public Map<String, String> start() {
        Devstack stack = Devstack.shared();
        stack.postgres().createDatabase(database);
        return stack.serviceConfig(database);
    }

    protected String database() {
        return database;
    }

    @Override
    public void stop() {
        // the stack outlives this test class and stops with the JVM
    }
}
