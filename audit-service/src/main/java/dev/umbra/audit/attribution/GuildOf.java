package dev.umbra.audit.attribution;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import io.smallrye.mutiny.Uni;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.time.Instant;
import java.util.Optional;

/** Read model: the guild of an aggregate that is not a guild (a license, a subscription, an invoice…). Written by {@link Attributions}. */
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

    @Column(name = "learned_at", nullable = false)
    public Instant learnedAt;

    static Uni<Optional<String>> guildOf(AttributionRules.AggregateRef aggregate) {
        return GuildOf.<GuildOf>findById(new Key(aggregate.type(), aggregate.id()))
                .map(found -> Optional.ofNullable(found).map(link -> link.guildId));
    }
}
