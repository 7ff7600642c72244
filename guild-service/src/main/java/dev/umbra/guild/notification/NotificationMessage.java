package dev.umbra.guild.notification;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/**
 * A row of the integration outbox: one message to deliver to a guild's owner on Discord. Its id is
 * the id of the event that caused it, so one event is one message. The payload names the guild and
 * the message's parameters, never a person: the recipient is looked up when it is sent.
 */
@Entity
@Table(name = "integration_outbox")
public class NotificationMessage extends PanacheEntityBase {

    public static final String DISCORD = "discord";

    @Id
    @Column(name = "outbox_id")
    public UUID outboxId;

    @Column(name = "aggregate_type", nullable = false)
    public String aggregateType;

    @Column(name = "aggregate_id", nullable = false)
    public String aggregateId;

    @Column(name = "event_type", nullable = false)
    public String eventType;

    @Column(name = "target_provider", nullable = false)
    public String targetProvider;

    @JdbcTypeCode(SqlTypes.JSON)
    @Column(nullable = false, columnDefinition = "jsonb")
    public JsonNode payload;

    @Column(nullable = false)
    public String status;

    public int attempts;

    @Column(name = "max_attempts", nullable = false)
    public int maxAttempts;

    @Column(name = "next_attempt_at", nullable = false)
    public Instant nextAttemptAt;

    @Column(name = "locked_until")
    public Instant lockedUntil;

    @Column(name = "last_error")
    public String lastError;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(name = "completed_at")
    public Instant completedAt;
}
