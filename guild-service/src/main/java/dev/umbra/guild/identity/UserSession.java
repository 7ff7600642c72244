package dev.umbra.guild.identity;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;

/** A signed-in session. Only the SHA-256 of its token is stored; the token itself is shown once, to its owner. */
@Entity
@Table(name = "user_session")
public class UserSession extends PanacheEntityBase {

    @Id
    @Column(name = "session_id")
    public UUID sessionId;

    @Column(name = "user_id", nullable = false)
    public UUID userId;

    @Column(name = "token_hash", nullable = false, unique = true)
    public String tokenHash;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    @Column(name = "expires_at", nullable = false)
    public Instant expiresAt;

    @Override
    public String toString() {
        return "UserSession[user " + userId + ", expires " + expiresAt + "]";
    }
}
