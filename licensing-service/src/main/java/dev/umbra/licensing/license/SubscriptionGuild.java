package dev.umbra.licensing.license;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;

/** Read model: the guild a subscription pays for, learned from SubscriptionStarted. */
@Entity
@Table(name = "subscription_guild")
public class SubscriptionGuild extends PanacheEntityBase {

    @Id
    @Column(name = "subscription_id")
    public UUID subscriptionId;

    @Column(name = "guild_id", nullable = false)
    public String guildId;

    @Column(name = "started_at", nullable = false)
    public Instant startedAt;
}
