package dev.umbra.recovery.snapshot;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;

/** A stored snapshot: the structure's canonical JSON and its SHA-256, never changed once written. */
@Entity
@Table(name = "snapshot")
public class Snapshot extends PanacheEntityBase {

    @Id
    public UUID id;

    @Column(name = "guild_id", nullable = false)
    public String guildId;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    public SnapshotTrigger trigger;

    @Column(nullable = false)
    public String structure;

    @Column(nullable = false)
    public String checksum;

    @Column(name = "size_bytes", nullable = false)
    public int sizeBytes;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;

    static Snapshot of(String guildId, SnapshotTrigger trigger, SnapshotCodec.Encoded encoded, Instant now) {
        Snapshot snapshot = new Snapshot();
        snapshot.id = UUID.randomUUID();
        snapshot.guildId = guildId;
        snapshot.trigger = trigger;
        snapshot.structure = encoded.json();
        snapshot.checksum = encoded.checksum();
        snapshot.sizeBytes = encoded.sizeBytes();
        snapshot.createdAt = now;
        return snapshot;
    }

    public GuildStructure decoded() {
        return SnapshotCodec.decode(structure);
    }
}
