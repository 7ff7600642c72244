package dev.umbra.guild.webjoin;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** A guild's public join link, {@code /web-join/{slug}}. One per guild. */
@Entity
@Table(name = "web_join_link")
public class WebJoinLink extends PanacheEntityBase {

    /** Lower-case letters, digits and inner dashes, 3 to 32 characters. */
    public static final String SLUG = "^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$";

    @Id
    public String slug;

    @Column(name = "guild_id", nullable = false, unique = true)
    public String guildId;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;
}
