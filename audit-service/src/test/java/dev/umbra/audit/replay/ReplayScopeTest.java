package dev.umbra.audit.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.umbra.audit.replay.ReplayScope.InvalidScopeException;
import dev.umbra.audit.replay.ReplayScope.Request;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ReplayScopeTest {

    @Test
    void oneAggregateATypeOrARangeAloneOrTogether() {
        assertThat(ReplayScope.of(new Request("license", "L-1", null, null)))
                .isEqualTo(new ReplayScope("license", "L-1", null, null));
        assertThat(ReplayScope.of(new Request(" license ", "", "", null))).isEqualTo(new ReplayScope("license", null, null, null));
        assertThat(ReplayScope.of(new Request(null, null, "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")))
                .isEqualTo(new ReplayScope(null, null, Instant.parse("2026-01-01T00:00:00Z"), Instant.parse("2026-02-01T00:00:00Z")));
    }

    @Test
    void scopesThatAreNotOneAreRefusedWithTheReason() {
        assertThatThrownBy(() -> ReplayScope.of(null)).isInstanceOf(InvalidScopeException.class).hasMessageContaining("aggregateType");
        assertThatThrownBy(() -> ReplayScope.of(new Request(null, null, null, null))).hasMessageContaining("aggregateType");
        assertThatThrownBy(() -> ReplayScope.of(new Request(null, "L-1", null, null))).hasMessage("aggregateId needs its aggregateType");
        assertThatThrownBy(() -> ReplayScope.of(new Request("license", null, "2026-01-01T00:00:00Z", null)))
                .hasMessage("a range needs both from and to");
        assertThatThrownBy(() -> ReplayScope.of(new Request(null, null, "2026-02-01T00:00:00Z", "2026-01-01T00:00:00Z")))
                .hasMessage("from must be before to");
        assertThatThrownBy(() -> ReplayScope.of(new Request(null, null, "yesterday", "2026-01-01T00:00:00Z")))
                .hasMessageContaining("from is an ISO-8601 instant");
        assertThatThrownBy(() -> ReplayScope.of(new Request("License; drop", null, null, null))).hasMessageContaining("lower case");
        assertThatThrownBy(() -> ReplayScope.of(new Request("license", "x".repeat(129), null, null))).hasMessageContaining("128");
    }

    @Test
    void theSameEventsHaveTheSameKey() {
        assertThat(ReplayScope.of(new Request("license", "L-1", null, null)).key()).isEqualTo("license/L-1/*/*")
                .isEqualTo(ReplayScope.of(new Request("license ", "L-1", "", "")).key());
        assertThat(ReplayScope.of(new Request("license", null, null, null)).key()).isNotEqualTo("license/L-1/*/*");
    }
}
