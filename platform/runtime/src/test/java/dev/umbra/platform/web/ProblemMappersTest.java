package dev.umbra.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.umbra.platform.storage.DatabaseSettings;
import dev.umbra.testing.ExpectedLog;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.lang.reflect.Proxy;
import java.net.SocketException;
import java.time.Duration;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.junit.jupiter.api.Test;

@ExpectedLog(category = "dev.umbra.platform.web.ProblemMappers", message = "database unavailable on /subscriptions")
@ExpectedLog(category = "dev.umbra.platform.web.ProblemMappers", level = "ERROR", message = "unexpected storage error on /subscriptions")
class ProblemMappersTest {

    private final ProblemMappers mappers = new ProblemMappers(settingsWithCircuitDelay(Duration.ofSeconds(5)));

    /**
     * What a pooled connection that PostgreSQL resets while it restarts fails a statement with. Unmapped, Quarkus
     * answers it with a 500 and logs it at DEBUG only, as a client's broken connection.
     */
    @Test
    void aConnectionResetByTheDatabaseIsA503WithRetryAfterNotA500() throws NoSuchMethodException {
        Class<?>[] mapped = ProblemMappers.class.getMethod("storage", Exception.class, UriInfo.class).getAnnotation(ServerExceptionMapper.class).value();
        assertThat(mapped).as("exceptions the storage mapper answers").anyMatch(type -> type.isAssignableFrom(SocketException.class));

        Response response = mappers.storage(new SocketException("Connection reset"), uri("/subscriptions"));

        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getHeaderString("Retry-After")).isEqualTo("5");
    }

    @Test
    void aStorageFailureThatWillNotPassStaysA500() {
        Response response = mappers.storage(new IllegalArgumentException("a bug"), uri("/subscriptions"));

        assertThat(response.getStatus()).isEqualTo(500);
    }

    private static UriInfo uri(String path) {
        return (UriInfo) Proxy.newProxyInstance(UriInfo.class.getClassLoader(), new Class<?>[] {UriInfo.class}, (proxy, method, args) -> {
            if (method.getName().equals("getPath")) {
                return path;
            }
            throw new UnsupportedOperationException(method.getName());
        });
    }

    private static DatabaseSettings settingsWithCircuitDelay(Duration delay) {
        DatabaseSettings.Circuit circuit = (DatabaseSettings.Circuit) Proxy.newProxyInstance(DatabaseSettings.class.getClassLoader(),
                new Class<?>[] {DatabaseSettings.Circuit.class}, (proxy, method, args) -> {
                    if (method.getName().equals("delay")) {
                        return delay;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        return (DatabaseSettings) Proxy.newProxyInstance(DatabaseSettings.class.getClassLoader(), new Class<?>[] {DatabaseSettings.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("circuit")) {
                        return circuit;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
