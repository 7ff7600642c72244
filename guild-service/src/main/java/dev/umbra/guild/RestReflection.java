package dev.umbra.guild;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The bodies of guild-service's REST API and REST clients, registered for the native image: Quarkus finds
 * most of them by itself, but a body reached only through a generic type or a field is not, and a
 * missing one fails only in the native build's users' hands. {@code RestPayloadsRegisteredTest} fails
 * when a body of an endpoint is missing here. Named, not class literals: some are nested in their
 * resources, out of this package's reach.
 */
@RegisterForReflection(classNames = {
        "dev.umbra.guild.identity.UserResource$RegistrationRequest",
        "dev.umbra.guild.identity.UserResource$SessionView",
        "dev.umbra.guild.identity.UserResource$UserView",
        "dev.umbra.guild.lifecycle.GuildStatus",
        "dev.umbra.guild.lifecycle.GuildView",
        "dev.umbra.guild.lifecycle.InstallationRequest",
        "dev.umbra.guild.lifecycle.OwnerChangeRequest",
        "dev.umbra.guild.notification.DiscordApi$NewMessage",
        "dev.umbra.guild.notification.DiscordApi$OpenChannel",
        "dev.umbra.guild.notification.NotificationAdminResource$DeadLetterView",
        "dev.umbra.guild.notification.NotificationAdminResource$RetryView",
        "dev.umbra.guild.webjoin.WebJoinLinkResource$LinkView",
        "dev.umbra.guild.webjoin.WebJoinLinkResource$SlugRequest",
        "dev.umbra.guild.webjoin.WebJoinMemberResource$MemberView"})
final class RestReflection {

    private RestReflection() {
    }
}
