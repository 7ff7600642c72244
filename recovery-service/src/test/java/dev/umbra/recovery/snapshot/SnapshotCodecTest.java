package dev.umbra.recovery.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SnapshotCodecTest {

    @Test
    void oneStructureHasOneChecksumAndReadsBackEqual() {
        SnapshotCodec.Encoded first = SnapshotCodec.encode(StructureFixtures.guild());
        SnapshotCodec.Encoded second = SnapshotCodec.encode(StructureFixtures.guild());

        assertThat(first).isEqualTo(second);
        assertThat(first.checksum()).hasSize(64);
        assertThat(SnapshotCodec.decode(first.json())).isEqualTo(StructureFixtures.guild());
        assertThat(SnapshotCodec.encode(new GuildStructure(StructureFixtures.guild().roles(), java.util.List.of(), java.util.List.of())).checksum())
                .isNotEqualTo(first.checksum());
    }
}
