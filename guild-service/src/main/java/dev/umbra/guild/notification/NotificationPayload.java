package dev.umbra.guild.notification;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The payload of a {@value NotificationDispatcher#QUEUE} work item: the event that causes the message,
 * its guild and the message's parameters, never a person (the recipient is looked up when it is sent).
 */
record NotificationPayload(String eventType, String aggregateType, String aggregateId, String guildId, JsonNode params) {

    static NotificationPayload of(JsonNode json) {
        return new NotificationPayload(json.path("event_type").asText(), json.path("aggregate_type").asText(),
                json.path("aggregate_id").asText(), json.path("guild_id").asText(), json.path("params"));
    }

    JsonNode toJson() {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("event_type", eventType);
        json.put("aggregate_type", aggregateType);
        json.put("aggregate_id", aggregateId);
        json.put("guild_id", guildId);
        json.set("params", params);
        return json;
    }
}
