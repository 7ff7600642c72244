package dev.umbra.licensing.license;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import io.smallrye.mutiny.Uni;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.time.Instant;
import java.util.UUID;

/** What a guild may use: one license per guild. */
@Entity
@Table(name = "license")
public class License extends PanacheEntityBase {

    @Id
    @Column(name = "license_id")
    public UUID licenseId;

    @Column(name = "guild_id", nullable = false, unique = true)
    public String guildId;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public Plan plan;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public LicenseStatus status;

    @Column(name = "expires_at")
    public Instant expiresAt;

    @Column(name = "suspension_reason")
    public String suspensionReason;

    @Column(name = "subscription_id")
    public UUID subscriptionId;

    @Column(name = "updated_at", nullable = false)
    public Instant updatedAt;

    @Version
    public long version;

    public static License free(String guildId, Instant now) {
        License license = new License();
        license.licenseId = UUID.randomUUID();
        license.guildId = guildId;
        license.plan = Plan.FREE;
        license.status = LicenseStatus.ACTIVE;
        license.updatedAt = now;
        return license;
    }

    public static Uni<License> findByGuild(String guildId) {
        return find("guildId", guildId).firstResult();
    }
}
