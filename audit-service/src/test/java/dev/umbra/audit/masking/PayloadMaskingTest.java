package dev.umbra.audit.masking;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.umbra.events.EventCatalog;
import dev.umbra.events.EventCodec;
import dev.umbra.events.identity.UserSessionCreated;
import io.smallrye.config.WithDefault;
import java.lang.reflect.RecordComponent;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The default masking rules (the values of MaskingSettings' defaults), without Quarkus. */
class PayloadMaskingTest {

    private final PayloadMasking defaults = new PayloadMasking(defaultOf("fieldNames"), defaultOf("replacement"));

    private static String defaultOf(String setting) {
        try {
            return MaskingSettings.class.getMethod(setting).getAnnotation(WithDefault.class).value();
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aSessionCreatedKeepsItsUserAndLosesItsSessionReference() {
        UUID user = UUID.randomUUID();
        PayloadMasking.Masked masked = defaults.mask(EventCodec.toTree(new UserSessionCreated(user, "3f9a1c")));

        assertThat(masked.payload().get("user_id").asText()).isEqualTo(user.toString());
        assertThat(masked.payload().get("session_ref").asText()).isEqualTo("***");
        assertThat(masked.maskedFields()).containsExactly("/session_ref");
        assertThat(masked.isMasked()).isTrue();
    }

    @Test
    void secretLookingFieldsNobodyAnnouncedAreMaskedAtAnyDepthWhateverTheirSpelling() {
        JsonNode payload = EventCodec.parse(("{\"guild_id\":\"1\",\"refresh_token\":\"a\",\"Gateway\":{\"CLIENT-SECRET\":\"b\",\"apiKey\":\"c\","
                + "\"url\":\"https://pg\"},\"cards\":[{\"card_number\":\"4111\",\"brand\":\"visa\"},{\"cvc\":\"123\"}],"
                + "\"billing_key\":\"bk_live\",\"billing_key_id\":\"7\",\"password\":\"d\",\"signature\":\"e\",\"tokens_left\":3}").getBytes());

        PayloadMasking.Masked masked = defaults.mask(payload);

        assertThat(masked.maskedFields()).containsExactly("/refresh_token", "/Gateway/CLIENT-SECRET", "/Gateway/apiKey",
                "/cards/0/card_number", "/cards/1/cvc", "/billing_key", "/password", "/signature", "/tokens_left");
        assertThat(masked.payload().toString()).doesNotContain("\"a\"", "\"b\"", "\"c\"", "4111", "123", "bk_live", "\"d\"", "\"e\"");
        assertThat(masked.payload().get("guild_id").asText()).isEqualTo("1");
        assertThat(masked.payload().get("billing_key_id").asText()).isEqualTo("7");
        assertThat(masked.payload().get("Gateway").get("url").asText()).isEqualTo("https://pg");
        assertThat(masked.payload().get("cards").get(0).get("brand").asText()).isEqualTo("visa");
        // the payload handed in is left as it was
        assertThat(payload.get("password").asText()).isEqualTo("d");
    }

    @Test
    void theGatewaysAuthKeysBillingKeysUnderOtherNamesSessionIdsJwtsAndCardCodesAreMaskedToo() {
        JsonNode payload = EventCodec.parse(("{\"authKey\":\"a\",\"auth_key\":\"b\",\"gateway_billing_key\":\"c\",\"billing_keys\":[\"d\"],"
                + "\"user_session_id\":\"e\",\"session_key\":\"f\",\"jwt\":\"g\",\"bearer\":\"h\",\"card_cvc\":\"i\",\"pwd\":\"j\","
                + "\"card_pan\":\"k\",\"billing_key_id\":\"7\",\"session_count\":2,\"user_id\":\"u\"}").getBytes());

        PayloadMasking.Masked masked = defaults.mask(payload);

        assertThat(masked.maskedFields()).containsExactly("/authKey", "/auth_key", "/gateway_billing_key", "/billing_keys", "/user_session_id",
                "/session_key", "/jwt", "/bearer", "/card_cvc", "/pwd", "/card_pan");
        assertThat(masked.payload().get("billing_key_id").asText()).isEqualTo("7");
        assertThat(masked.payload().get("session_count").asInt()).isEqualTo(2);
        assertThat(masked.payload().get("user_id").asText()).isEqualTo("u");
    }

    @Test
    void cardDataUnderOtherNamesIsMasked() {
        JsonNode payload = EventCodec.parse(("{\"card\":\"x\",\"card_no\":\"a\",\"cardNum\":\"b\",\"cc_number\":\"c\",\"expiry\":\"12/29\","
                + "\"card_expiry\":\"d\",\"track2\":\"e\",\"pin\":\"f\",\"encryption_key\":\"g\",\"session_hash\":\"h\","
                + "\"pinned\":true,\"license_expires_at\":\"2026-01-01T00:00:00Z\"}").getBytes());

        PayloadMasking.Masked masked = defaults.mask(payload);

        assertThat(masked.maskedFields()).containsExactly("/card", "/card_no", "/cardNum", "/cc_number", "/expiry", "/card_expiry", "/track2",
                "/pin", "/encryption_key", "/session_hash");
    }

    @Test
    void aCardNumberAJwtOrABearerTokenInAnyTextIsMaskedWhateverTheFieldsName() {
        String jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl";
        JsonNode payload = EventCodec.parse(("{\"reason\":\"customer asked, card 4111 1111 1111 1111\",\"note\":\"4111-1111-1111-1111\","
                + "\"error_summary\":\"Discord said 401 for Bearer abcdefgh12345678ijklmnop\",\"detail\":\"invalid Bearer authorization header\",\"result_summary\":\"token " + jwt + " refused\","
                + "\"lines\":[\"378282246310005\",\"kept\"],"
                // a Discord id (17 to 20 digits), an order number that fails the Luhn check, an epoch in millis: kept
                + "\"guild_id\":\"123456789012345678\",\"suspects\":[\"1234567890123456789\"],\"order\":\"4111111111111112\","
                + "\"at\":\"1795895338852\",\"amount\":4111111111111111,\"subscription_id\":\"41111111-1111-1111-1111-000000000000\"}").getBytes());

        PayloadMasking.Masked masked = defaults.mask(payload);

        assertThat(masked.maskedFields()).containsExactly("/reason", "/note", "/error_summary", "/result_summary", "/lines/0");
        assertThat(masked.payload().toString()).doesNotContain("4111 1111", "4111-1111", "abcdefgh12345678ijklmnop", jwt, "378282246310005")
                .contains("123456789012345678", "1234567890123456789", "4111111111111112", "1795895338852", "kept",
                        "41111111-1111-1111-1111-000000000000", "invalid Bearer authorization header");
    }

    @Test
    void noFieldOfAnyEventInTheCatalogueIsMaskedButTheSessionReference() {
        for (EventCatalog.Entry entry : EventCatalog.entries()) {
            for (RecordComponent component : entry.payloadType().getRecordComponents()) {
                String field = PropertyNamingStrategies.SnakeCaseStrategy.INSTANCE.translate(component.getName());
                assertThat(defaults.isSecret(field)).as("%s.%s", entry.eventType(), field).isEqualTo(field.equals("session_ref"));
            }
        }
    }

    @Test
    void aPayloadWithNothingSecretIsStoredAsItIs() {
        JsonNode payload = EventCodec.parse("{\"license_id\":\"1\",\"new_expires_at\":\"2026-01-01T00:00:00Z\",\"session_count\":2}".getBytes());

        PayloadMasking.Masked masked = defaults.mask(payload);

        assertThat(masked.isMasked()).isFalse();
        assertThat(masked.payload()).isEqualTo(payload);
    }

    @Test
    void rulesAreWhatTheConfigurationSays() {
        PayloadMasking onlyNotes = new PayloadMasking("note", "[hidden]");

        PayloadMasking.Masked masked = onlyNotes.mask(EventCodec.parse("{\"note\":\"x\",\"session_ref\":\"y\"}".getBytes()));

        assertThat(masked.payload().toString()).isEqualTo("{\"note\":\"[hidden]\",\"session_ref\":\"y\"}");
    }
}
