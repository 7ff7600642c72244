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

    /**
     * When, on Discord, the latest install or kick applied happened, as far as the bot's calls said: an install or kick about an
     * earlier event is overtaken. Whether the bot is in the guild and who owns it are two facts, each with its own order.
     */
    @Column(name = "presence_at")
    public Instant presenceAt;

    /** When, on Discord, the latest owner change applied happened: an owner change about an earlier one is overtaken. */
    @Column(name = "owner_at")
    public Instant ownerAt;

    @Version
    public long version;

    public static Guild installed(String guildId, String installerUserId, Instant occurredAt, Instant now) {
        Guild guild = new Guild();
        guild.guildId = guildId;
        guild.status = GuildStatus.INSTALLED;
        guild.installerUserId = installerUserId;
        guild.ownerId = installerUserId;
        guild.installedAt = now;
        guild.updatedAt = now;
        guild.presenceAt = occurredAt;
        return guild;
    }

    /**
     * A guild the bot was kicked from at {@code occurredAt} before its install reached us (the kick overtook it): kept, so
     * that install, when it comes, is seen to have happened before the kick and changes nothing.
     */
    public static Guild kickedUnseen(String guildId, Instant occurredAt, Instant now) {
        Guild guild = new Guild();
        guild.guildId = guildId;
        guild.status = GuildStatus.KICKED;
        guild.updatedAt = now;
        guild.presenceAt = occurredAt;
        return guild;
    }

    /** Whether an install or kick that happened on Discord at {@code occurredAt} (null: not said) comes after a later one was applied. */
    public boolean presenceOvertaken(Instant occurredAt) {
        return before(occurredAt, presenceAt);
    }

    /** Whether an owner change that happened on Discord at {@code occurredAt} (null: not said) comes after a later one was applied. */
    public boolean ownerOvertaken(Instant occurredAt) {
        return before(occurredAt, ownerAt);
    }

    private static boolean before(Instant occurredAt, Instant latest) {
        return occurredAt != null && latest != null && occurredAt.isBefore(latest);
    }

    private static Instant latest(Instant occurredAt, Instant latest) {
        return occurredAt != null && (latest == null || occurredAt.isAfter(latest)) ? occurredAt : latest;
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
     * The bot is added (again) at {@code occurredAt} on Discord (null: not said). Returns false when it already is
     * installed (a repeated call from the gateway changes nothing and publishes nothing) or the call was overtaken.
     */
    public boolean install(String installerUserId, Instant occurredAt, Instant now) {
        if (status == GuildStatus.DELETED) {
            throw new IllegalStateException("guild " + guildId + " was deleted");
        }
        if (presenceOvertaken(occurredAt)) {
            return false;
        }
        presenceAt = latest(occurredAt, presenceAt);
        if (status == GuildStatus.INSTALLED) {
            return false;
        }
        this.status = GuildStatus.INSTALLED;
        this.installerUserId = installerUserId;
        if (ownerId == null) {
            this.ownerId = installerUserId;
        }
        this.installedAt = now;
        this.updatedAt = now;
        return true;
    }

    /** The bot was removed at {@code occurredAt} on Discord (null: not said). Returns false when it already was, the guild is gone, or the call was overtaken. */
    public boolean kick(Instant occurredAt, Instant now) {
        if (presenceOvertaken(occurredAt) || status == GuildStatus.DELETED) {
            return false;
        }
        presenceAt = latest(occurredAt, presenceAt);
        if (status != GuildStatus.INSTALLED) {
            return false;
        }
        status = GuildStatus.KICKED;
        updatedAt = now;
        return true;
    }

    /**
     * Returns false when {@code newOwnerId} already owns the guild, or the call was overtaken by a later owner change; an install
     * or a kick never overtakes it (the owner an install set, its installer, is no fact about when the owner changed).
     */
    public boolean changeOwner(String newOwnerId, Instant occurredAt, Instant now) {
        if (status == GuildStatus.DELETED) {
            throw new IllegalStateException("guild " + guildId + " was deleted");
        }
        if (ownerOvertaken(occurredAt)) {
            return false;
        }
        ownerAt = latest(occurredAt, ownerAt);
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
