package dev.umbra.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ComposeSecretsTest {

    @TempDir
    Path folder;

    @Test
    void eachServiceGetsItsDatabasePasswordAndOnlyItsOwnSecrets() throws Exception {
        assertThat(ComposeSecrets.init(folder)).isTrue();
        String password = Files.readString(folder.resolve("db-password"));

        Properties billing = properties("billing");
        assertThat(billing.stringPropertyNames()).containsExactlyInAnyOrder("quarkus.datasource.password", "quarkus.flyway.password",
                "umbra.payment-gateway.secret-key", "umbra.payment-gateway.callback-secret", "umbra.billing-key.encryption.keys.1");
        assertThat(Base64.getDecoder().decode(billing.getProperty("umbra.billing-key.encryption.keys.1"))).hasSize(32);
        assertThat(properties("guild").stringPropertyNames()).containsExactlyInAnyOrder("quarkus.datasource.password", "quarkus.flyway.password",
                "umbra.discord.bot-token");
        assertThat(properties("audit").stringPropertyNames()).containsExactlyInAnyOrder("quarkus.datasource.password", "quarkus.flyway.password");
        // the migrations run as the owner; the service as its own role, with a password of its own
        Properties licensing = properties("licensing");
        assertThat(licensing.getProperty("quarkus.flyway.password")).isEqualTo(password);
        assertThat(licensing.getProperty("quarkus.datasource.password")).isNotEqualTo(password)
                .isNotEqualTo(properties("guild").getProperty("quarkus.datasource.password"));
        assertThat(Files.readString(folder.resolve("service-roles.sql")))
                .contains("CREATE ROLE licensing_app LOGIN PASSWORD '" + licensing.getProperty("quarkus.datasource.password") + "';");
        assertThat(Files.readString(folder.resolve("connect.env")))
                .contains("export UMBRA_BILLING_DB_PASSWORD=" + password).doesNotContain("AUDIT");
        assertThat(Files.readString(folder.resolve("sandboxes.env")))
                .contains("export UMBRA_DISCORD_BOT_TOKEN=" + properties("recovery").getProperty("umbra.discord.bot-token"))
                .contains("export UMBRA_PAYMENT_GATEWAY_SECRET_KEY=" + billing.getProperty("umbra.payment-gateway.secret-key"));
    }

    @Test
    void aSecondStartKeepsTheSecretsTheDatabaseWasMadeWith() throws Exception {
        ComposeSecrets.init(folder);
        String password = Files.readString(folder.resolve("db-password"));
        assertThat(ComposeSecrets.init(folder)).isFalse();
        assertThat(Files.readString(folder.resolve("db-password"))).isEqualTo(password);
    }

    @Test
    void aTokenIsSignedWithTheKeyTheServicesVerify() throws Exception {
        ComposeSecrets.init(folder);
        String[] token = ComposeSecrets.token(folder, "bot").split("\\.");
        String pem = Files.readString(folder.resolve("jwt-public.pem")).replaceAll("-----[A-Z ]+-----|\\s", "");
        Signature verifier = Signature.getInstance("SHA256withRSA");
        verifier.initVerify(KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(pem))));
        verifier.update((token[0] + "." + token[1]).getBytes(StandardCharsets.US_ASCII));
        assertThat(verifier.verify(Base64.getUrlDecoder().decode(token[2]))).isTrue();
        assertThat(new String(Base64.getUrlDecoder().decode(token[1]), StandardCharsets.UTF_8))
                .contains("\"groups\":[\"bot\"]", "\"aud\":\"" + JwtKeys.AUDIENCE + "\"");
    }

    private Properties properties(String service) throws Exception {
        Properties properties = new Properties();
        properties.load(new StringReader(Files.readString(folder.resolve(service + ".properties"))));
        return properties;
    }
}
