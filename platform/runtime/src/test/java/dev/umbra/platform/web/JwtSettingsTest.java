package dev.umbra.platform.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class JwtSettingsTest {

    private static final Map<String, String> COMPLETE = Map.of(
            "mp.jwt.verify.issuer", "https://issuer.example",
            "mp.jwt.verify.publickey.location", "file:/keys/public.pem",
            "mp.jwt.verify.audiences", "umbra-api");

    @Test
    void startsWhenIssuerKeyAndAudienceAreSet() {
        assertThatCode(() -> JwtSettings.requireAll(key -> Optional.ofNullable(COMPLETE.get(key)))).doesNotThrowAnyException();
    }

    @Test
    void refusesToStartNamingEveryMissingSetting() {
        assertThatThrownBy(() -> JwtSettings.requireAll(key -> Optional.empty()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("UMBRA_JWT_ISSUER").hasMessageContaining("UMBRA_JWT_PUBLIC_KEY")
                .hasMessageContaining("UMBRA_JWT_AUDIENCE");
        assertThatThrownBy(() -> JwtSettings.requireAll(key -> key.endsWith("audiences") ? Optional.of("  ")
                : Optional.ofNullable(COMPLETE.get(key))))
                .hasMessageContaining("UMBRA_JWT_AUDIENCE").hasMessageNotContaining("UMBRA_JWT_ISSUER");
    }

    /** The shipped defaults must not smuggle a fallback back in: each required property expands to nothing without its variable. */
    @Test
    void theSharedDefaultsHoldNoIssuerKeyOrAudience() throws IOException {
        Properties defaults = new Properties();
        try (InputStream in = JwtSettings.class.getResourceAsStream("/META-INF/microprofile-config.properties")) {
            defaults.load(in);
        }
        for (JwtSettings.Required required : JwtSettings.REQUIRED) {
            assertThat(defaults.getProperty(required.property()))
                    .as(required.property()).isEqualTo("${" + required.environment() + ":}");
        }
    }
}
