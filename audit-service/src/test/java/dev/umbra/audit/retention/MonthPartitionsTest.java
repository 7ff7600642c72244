package dev.umbra.audit.retention;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class MonthPartitionsTest {

    private static final Instant NOW = Instant.parse("2026-11-23T14:00:00Z");

    @Test
    void keepsTheCurrentMonthAndTheWholeMonthsBeforeIt() {
        assertThat(MonthPartitions.keptFrom(NOW, 24)).isEqualTo(Instant.parse("2024-11-01T00:00:00Z"));
        assertThat(MonthPartitions.keptFrom(Instant.parse("2026-01-01T00:00:00Z"), 1)).isEqualTo(Instant.parse("2025-12-01T00:00:00Z"));
    }

    @Test
    void dropsOnlyMonthPartitionsOlderThanWhatIsKept() {
        List<String> names = List.of("audit_log_2024_10", "audit_guild_2024_10", "audit_log_2024_11", "audit_log_2026_12",
                "audit_log_default", "audit_guild_default", "audit_log_2023_01", "aggregate_guild", "audit_log_2024_1");

        assertThat(MonthPartitions.toDrop(names, MonthPartitions.keptFrom(NOW, 24)))
                .containsExactly("audit_guild_2024_10", "audit_log_2023_01", "audit_log_2024_10");
    }
}
