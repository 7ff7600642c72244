package dev.umbra.guild.notification;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import io.smallrye.mutiny.Uni;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;
import java.io.Serializable;

/** Read model: the guild another service's aggregate (a subscription, a license, a restore job) belongs to. */
@Entity
@Table(name = "guild_of")
@IdClass(GuildOf.Key.class)
public class GuildOf extends PanacheEntityBase {

    public record Key(String aggregateType, String aggregateId) implements Serializable {
        public Key() {
            this(null, null);
        }
    }

    @Id
    @Column(name = "aggregate_type")
    public String aggregateType;

    @Id
    @Column(name = "aggregate_id")
    public String aggregateId;

    @Column(name = "guild_id", nullable = false)
    public String guildId;

    static Uni<String> guildOf(String aggregateType, String aggregateId) {
        return GuildOf.<GuildOf>findById(new Key(aggregateType, aggregateId)).map(found -> found == null ? null : found.guildId);
    }

    static Uni<Void> remember(String aggregateType, String aggregateId, String guildId) {
        return GuildOf.<GuildOf>findById(new Key(aggregateType, aggregateId)).chain(existing -> {
            if (existing != null) {
                return Uni.createFrom().voidItem();
            }
            GuildOf link = new GuildOf();
            link.aggregateType = aggregateType;
            link.aggregateId = aggregateId;
            link.guildId = guildId;
            return link.persist().replaceWithVoid();
        });
    }
}
