package dev.umbra.guild.notification;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What the owner reads for each event. Plain Java; the parameters are the payload's {@code params}. Each template names the
 * payload fields it reads, and a notification keeps only those ({@link #paramsOf}): a field an event gains later, or one
 * that names a person (an anti-nuke suspect, an installer), never reaches the queue's table unless a template is written
 * to show it.
 */
final class NotificationTemplates {

    private record Template(List<String> fields, Function<JsonNode, String> text) {
    }

    private static final Map<String, Template> TEMPLATES = Map.ofEntries(
            Map.entry("SubscriptionStarted", new Template(List.of("plan_code"),
                    p -> "Your " + text(p, "plan_code") + " subscription is active. Thank you!")),
            Map.entry("PaymentFailed", new Template(List.of("retry_count"),
                    p -> "A payment for your subscription failed (attempt " + text(p, "retry_count")
                            + "). We will try again in 24 hours; check your billing key.")),
            Map.entry("PaymentFailedFinal", new Template(List.of(),
                    p -> "We could not collect your subscription's payment; the subscription is canceled.")),
            Map.entry("SubscriptionCanceled", new Template(List.of("cancel_at_period_end"),
                    p -> text(p, "cancel_at_period_end").equals("true")
                            ? "Your subscription will end at the end of the current period."
                            : "Your subscription is canceled.")),
            Map.entry("SubscriptionResumed", new Template(List.of(), p -> "Your subscription is running again.")),
            Map.entry("PlanUpgraded", new Template(List.of("new_plan"), p -> "Your plan is now " + text(p, "new_plan") + ".")),
            Map.entry("PlanDowngraded", new Template(List.of("old_plan", "new_plan", "effective_at"),
                    p -> "Your plan changes from " + text(p, "old_plan") + " to " + text(p, "new_plan") + " on " + text(p, "effective_at") + ".")),
            Map.entry("LicenseDowngraded", new Template(List.of("new_plan"),
                    p -> "Your server is now on the " + text(p, "new_plan") + " plan.")),
            Map.entry("LicenseSuspended", new Template(List.of("reason"), p -> "Umbra is paused for your server (" + text(p, "reason") + ").")),
            Map.entry("RestoreStarted", new Template(List.of(), p -> "A restore of your server has started.")),
            Map.entry("RestoreCompleted", new Template(List.of("result_summary"),
                    p -> "The restore of your server is complete: " + text(p, "result_summary"))),
            Map.entry("RestoreFailed", new Template(List.of("error_summary"),
                    p -> "The restore of your server failed: " + text(p, "error_summary"))),
            Map.entry("AntiNukeTriggered", new Template(List.of("detected_pattern"),
                    p -> "Anti-nuke: suspicious activity detected on your server (" + text(p, "detected_pattern") + ").")),
            Map.entry("AntiNukeActioned", new Template(List.of("actions_taken"),
                    p -> "Anti-nuke acted on your server: " + text(p, "actions_taken"))));

    private NotificationTemplates() {
    }

    /** Throws {@link IllegalArgumentException} for an event without a template or parameters that are not an object. */
    static String render(String eventType, JsonNode params) {
        if (params == null || !params.isObject()) {
            throw new IllegalArgumentException("the parameters of a " + eventType + " message are not an object: " + params);
        }
        return template(eventType).text().apply(params);
    }

    /** The fields of the event's payload its template reads, and no other; none for an event without a template. */
    static ObjectNode paramsOf(String eventType, JsonNode payload) {
        ObjectNode params = JsonNodeFactory.instance.objectNode();
        Template template = TEMPLATES.get(eventType);
        if (template != null) {
            template.fields().stream().filter(payload::has).forEach(field -> params.set(field, payload.get(field).deepCopy()));
        }
        return params;
    }

    private static Template template(String eventType) {
        Template template = TEMPLATES.get(eventType);
        if (template == null) {
            throw new IllegalArgumentException("no template for " + eventType);
        }
        return template;
    }

    private static String text(JsonNode params, String field) {
        JsonNode value = params.path(field);
        if (value.isArray()) {
            StringBuilder joined = new StringBuilder();
            value.forEach(item -> joined.append(joined.length() == 0 ? "" : ", ").append(item.asText()));
            return joined.toString();
        }
        return value.asText("");
    }
}
