package dev.umbra.testing;

import dev.umbra.devstack.Devstack;
import java.util.HashMap;
import java.util.Map;

/**
 * Like {@link DevstackResource}, but the service reaches its database through a {@link DatabaseLink}
 * that the test gets in its {@link InjectDatabaseLink} field, to cut and restore. Flyway still
 * migrates over a direct JDBC connection.
 */
public class DatabaseLinkResource extends DevstackResource {

    private DatabaseLink link;

    @Override
    public Map<String, String> start() {
        Map<String, String> config = new HashMap<>(super.start());
        var postgres = Devstack.shared().postgres();
        link = DatabaseLink.to(postgres.host(), postgres.port());
        config.put("quarkus.datasource.reactive.url",
                "postgresql://127.0.0.1:" + link.port() + "/" + database());
        return config;
    }

    @Override
    public void inject(TestInjector injector) {
        injector.injectIntoFields(link, new TestInjector.AnnotatedAndMatchesType(InjectDatabaseLink.class, DatabaseLink.class));
    }

    @Override
    public void stop() {
        if (link != null) {
            link.close();
        }
    }
}
