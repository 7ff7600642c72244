package dev.umbra.guild.notification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.umbra.events.EventCodec;
import dev.umbra.events.billing.PlanDowngraded;
import dev.umbra.events.recovery.AntiNukeActioned;
import dev.umbra.events.recovery.AntiNukeTriggered;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class NotificationTemplatesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void rendersTheEventsParameters() throws Exception {
        var downgrade = JSON.readTree(EventCodec.toJson(new PlanDowngraded(UUID.randomUUID(), "PREMIUM", "PRO",
                Instant.parse("2026-12-01T00:00:00Z"))));
        assertThat(NotificationTemplates.render("PlanDowngraded", downgrade))
                .isEqualTo("Your plan changes from PREMIUM to PRO on 2026-12-01T00:00:00Z.");

        var actions = JSON.readTree(EventCodec.toJson(new AntiNukeActioned("123456789012345678", List.of("locked channels", "banned 2"))));
        assertThat(NotificationTemplates.render("AntiNukeActioned", actions))
                .isEqualTo("Anti-nuke acted on your server: locked channels, banned 2");
    }

    @Test
    void everyNotifiedEventHasATemplate() {
        for (String type : List.of("SubscriptionStarted", "PaymentFailed", "PaymentFailedFinal", "SubscriptionCanceled", "SubscriptionResumed", "PlanUpgraded",
                "PlanDowngraded", "LicenseDowngraded", "LicenseSuspended", "RestoreStarted", "RestoreCompleted", "RestoreFailed",
                "AntiNukeTriggered", "AntiNukeActioned")) {
            assertThat(NotificationTemplates.render(type, JSON.createObjectNode())).isNotBlank();
        }
        assertThatThrownBy(() -> NotificationTemplates.render("BotInstalled", JSON.createObjectNode()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aNotificationKeepsOnlyWhatItsTemplateShowsSoNoPersonReachesTheQueue() throws Exception {
        var triggered = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(EventCodec.toJson(
                new AntiNukeTriggered("123456789012345678", "mass-ban", List.of("323456789012345678"))));
        triggered.put("moderator_id", "423456789012345678"); // a field the event might gain one day
        var kept = NotificationTemplates.paramsOf("AntiNukeTriggered", triggered);

        assertThat(kept.toString()).doesNotContain("323456789012345678").doesNotContain("423456789012345678")
                .doesNotContain("123456789012345678");
        assertThat(NotificationTemplates.render("AntiNukeTriggered", kept)).isEqualTo(NotificationTemplates.render("AntiNukeTriggered", triggered))
                .isEqualTo("Anti-nuke: suspicious activity detected on your server (mass-ban).");
        assertThat(NotificationTemplates.paramsOf("BotInstalled", triggered).isEmpty()).isTrue();
    }

    @Test
    void everyTemplateReadsTheSameFromWhatIsKeptAsFromTheWholeEvent() throws Exception {
        var downgrade = JSON.readTree(EventCodec.toJson(new PlanDowngraded(UUID.randomUUID(), "PREMIUM", "PRO",
                Instant.parse("2026-12-01T00:00:00Z"))));
        assertThat(NotificationTemplates.render("PlanDowngraded", NotificationTemplates.paramsOf("PlanDowngraded", downgrade)))
                .isEqualTo("Your plan changes from PREMIUM to PRO on 2026-12-01T00:00:00Z.");
        var actions = JSON.readTree(EventCodec.toJson(new AntiNukeActioned("123456789012345678", List.of("locked channels", "banned 2"))));
        assertThat(NotificationTemplates.render("AntiNukeActioned", NotificationTemplates.paramsOf("AntiNukeActioned", actions)))
                .isEqualTo("Anti-nuke acted on your server: locked channels, banned 2");
    }

    @Test
    void theNonceFitsDiscordsLimitAndIsStable() {
        UUID id = UUID.fromString("0b8c6a52-1d2e-4f3a-9b7c-123456789abc");
        assertThat(DiscordMessenger.nonce(id)).hasSizeLessThanOrEqualTo(25).isEqualTo(DiscordMessenger.nonce(id));
    }
}
