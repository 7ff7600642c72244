package dev.umbra.guild.identity;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import io.smallrye.mutiny.Uni;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;

/** Someone who signed in with Discord. */
@Entity
@Table(name = "app_user")
public class AppUser extends PanacheEntityBase {

    @Id
    @Column(name = "user_id")
    public UUID userId;

    @Column(name = "discord_user_id", nullable = false, unique = true)
    public String discordUserId;

    @Column(name = "registered_at", nullable = false)
    public Instant registeredAt;

    static Uni<AppUser> findByDiscordId(String discordUserId) {
        return find("discordUserId", discordUserId).firstResult();
    }
}
