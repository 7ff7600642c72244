package dev.umbra.guild.notification;

import com.fasterxml.jackson.databind.JsonNode;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import org.eclipse.microprofile.rest.client.annotation.ClientHeaderParam;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** The two calls of Discord's HTTP API that send a direct message. */
@RegisterRestClient(configKey = "discord")
@Path("/api/v10")
@ClientHeaderParam(name = "Authorization", value = "Bot ${umbra.discord.bot-token}")
public interface DiscordApi {

    record OpenChannel(String recipient_id) {
    }

    /** Discord drops a second message with the same nonce when {@code enforce_nonce} is set: a retry cannot post twice. */
    record NewMessage(String content, String nonce, boolean enforce_nonce) {
    }

    @POST
    @Path("/users/@me/channels")
    Uni<JsonNode> openDirectMessage(OpenChannel request);

    @POST
    @Path("/channels/{channelId}/messages")
    Uni<JsonNode> send(@PathParam("channelId") String channelId, NewMessage message);
}
