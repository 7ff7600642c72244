package dev.umbra.guild.webjoin;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;

/** A Discord user who joined a guild through its web-join link. One per guild and user. */
@Entity
@Table(name = "member")
public class Member extends PanacheEntityBase {

    @Id
    @Column(name = "member_id")
    public UUID memberId;

    @Column(name = "guild_id", nullable = false)
    public String guildId;

    @Column(name = "discord_user_id", nullable = false)
    public String discordUserId;

    @Column(nullable = false)
    public String slug;

    @Column(name = "joined_at", nullable = false)
    public Instant joinedAt;
}
