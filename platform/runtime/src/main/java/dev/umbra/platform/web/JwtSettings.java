package dev.umbra.platform.web;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;

/**
 * A service refuses to start unless it knows who issues its tokens, with which key, and for which
 * audience: there is no default to fall back on, in any profile (tests and the local run get
 * devstack's). Without this check a missing key would surface only as every request failing with 401.
 */
@ApplicationScoped
public class JwtSettings {

    /** Each required property and the environment variable that sets it. */
    static final List<Required> REQUIRED = List.of(
            new Required("mp.jwt.verify.issuer", "UMBRA_JWT_ISSUER"),
            new Required("mp.jwt.verify.publickey.location", "UMBRA_JWT_PUBLIC_KEY"),
            new Required("mp.jwt.verify.audiences", "UMBRA_JWT_AUDIENCE"));

    record Required(String property, String environment) {
    }

    void onStart(@Observes StartupEvent start, Config config) {
        requireAll(property -> config.getOptionalValue(property, String.class));
    }

    /** Throws, naming every missing setting, unless each is set to something other than blanks. */
    static void requireAll(Function<String, Optional<String>> lookup) {
        List<Required> missing = REQUIRED.stream()
                .filter(required -> lookup.apply(required.property()).filter(value -> !value.isBlank()).isEmpty())
                .toList();
        if (!missing.isEmpty()) {
            throw new IllegalStateException("JWT verification is not configured: set " + String.join(", ", missing.stream()
                    .map(required -> required.environment() + " (" + required.property() + ")").toList()));
        }
    }
}
