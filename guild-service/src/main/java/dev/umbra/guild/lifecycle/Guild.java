package dev.umbra.guild.lifecycle;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import java.time.Instant;

/** A Discord server the bot has been added to. Its rules are plain Java: no Quarkus needed to test them. */
@Entity
@Table(name = "guild")
public class Guild extends PanacheEntityBase {

    @Id
    @Column(name = "guild_id")
    public String guildId;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public GuildStatus status;

    /** Null, as the owner and the install time, for a guild deleted before its install reached us ({@link #deletedUnseen}). */
    @Column(name = "installer_user_id")
    public String installerUserId;

    @Column(name = "owner_id")
    public String ownerId;

    @Column(name = "installed_at")
    public Instant installedAt;

    @Column(name = "updated_at", nullable = false)
    public Instant updatedAt;

    @Version
    public long version;

    public static Guild installed(String guildId, String installerUserId, Instant now) {
        Guild guild = new Guild();
        guild.guildId = guildId;
        guild.status = GuildStatus.INSTALLED;
        guild.installerUserId = installerUserId;
        guild.ownerId = installerUserId;
        guild.installedAt = now;
        guild.updatedAt = now;
        return guild;
    }

    /**
     * A guild deleted on Discord that we never saw installed (the delete overtook its install): a tombstone,
     * so the install that comes later is refused rather than bring it back.
     */
    public static Guild deletedUnseen(String guildId, Instant now) {
        Guild guild = new Guild();
        guild.guildId = guildId;
        guild.status = GuildStatus.DELETED;
        guild.updatedAt = now;
        return guild;
    }

    /**
     * The bot is added (again). Returns false when it already is installed: a repeated call from the
     * gateway changes nothing and publishes nothing.
     */
    public boolean install(String installerUserId, Instant now) {
        if (status == GuildStatus.INSTALLED) {
            return false;
        }
        if (status == GuildStatus.DELETED) {
            throw new IllegalStateException("guild " + guildId + " was deleted");
        }
        this.status = GuildStatus.INSTALLED;
        this.installerUserId = installerUserId;
        this.installedAt = now;
        this.updatedAt = now;
        return true;
    }

    /** The bot was removed. Returns false when it already was (or the guild is gone). */
    public boolean kick(Instant now) {
        if (status != GuildStatus.INSTALLED) {
            return false;
        }
        status = GuildStatus.KICKED;
        updatedAt = now;
        return true;
    }

    /** Returns false when {@code newOwnerId} already owns the guild. */
    public boolean changeOwner(String newOwnerId, Instant now) {
        if (status == GuildStatus.DELETED) {
            throw new IllegalStateException("guild " + guildId + " was deleted");
        }
        if (newOwnerId.equals(ownerId)) {
            return false;
        }
        ownerId = newOwnerId;
        updatedAt = now;
        return true;
    }

    /** The guild itself was deleted on Discord: final. Returns false when it already was. */
    public boolean delete(Instant now) {
        if (status == GuildStatus.DELETED) {
            return false;
        }
        status = GuildStatus.DELETED;
        updatedAt = now;
        return true;
    }
}
