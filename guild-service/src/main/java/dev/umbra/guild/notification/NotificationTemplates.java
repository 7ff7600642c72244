package dev.umbra.guild.notification;

import com.fasterxml.jackson.databind.JsonNode;

/** What the owner reads for each event. Plain Java; the parameters are the payload's {@code params}. */
final class NotificationTemplates {

    private NotificationTemplates() {
    }

    /** Throws {@link IllegalArgumentException} for an event without a template or parameters that are not an object. */
    static String render(String eventType, JsonNode params) {
        if (params == null || !params.isObject()) {
            throw new IllegalArgumentException("the parameters of a " + eventType + " message are not an object: " + params);
        }
        return switch (eventType) {
            case "SubscriptionStarted" -> "Your " + text(params, "plan_code") + " subscription is active. Thank you!";
            case "PaymentFailed" -> "A payment for your subscription failed (attempt " + text(params, "retry_count")
                    + "). We will try again in 24 hours; check your billing key.";
            case "PaymentFailedFinal" -> "We could not collect your subscription's payment; the subscription is canceled.";
            case "SubscriptionCanceled" -> text(params, "cancel_at_period_end").equals("true")
                    ? "Your subscription will end at the end of the current period."
                    : "Your subscription is canceled.";
            case "SubscriptionResumed" -> "Your subscription is running again.";
            case "PlanUpgraded" -> "Your plan is now " + text(params, "new_plan") + ".";
            case "PlanDowngraded" -> "Your plan changes from " + text(params, "old_plan") + " to " + text(params, "new_plan")
                    + " on " + text(params, "effective_at") + ".";
            case "LicenseDowngraded" -> "Your server is now on the " + text(params, "new_plan") + " plan.";
            case "LicenseSuspended" -> "Umbra is paused for your server (" + text(params, "reason") + ").";
            case "RestoreStarted" -> "A restore of your server has started.";
            case "RestoreCompleted" -> "The restore of your server is complete: " + text(params, "result_summary");
            case "RestoreFailed" -> "The restore of your server failed: " + text(params, "error_summary");
            case "AntiNukeTriggered" -> "Anti-nuke: suspicious activity detected on your server (" + text(params, "detected_pattern") + ").";
            case "AntiNukeActioned" -> "Anti-nuke acted on your server: " + text(params, "actions_taken");
            default -> throw new IllegalArgumentException("no template for " + eventType);
        };
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
