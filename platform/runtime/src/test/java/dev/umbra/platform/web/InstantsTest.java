package dev.umbra.platform.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import org.junit.jupiter.api.Test;

class InstantsTest {

    private record Body(Instant occurredAt) {
    }

    @Test
    void anInstantPostgresCanStoreIsReadAsItIs() {
        assertThat(Instants.parse("2026-11-28T09:00:00Z")).isEqualTo(Instant.parse("2026-11-28T09:00:00Z"));
        assertThat(Instants.parse("0001-01-01T00:00:00Z")).isEqualTo(Instants.EARLIEST);
        assertThat(Instants.parameter("asOf", " ")).isNull();
        assertThat(Instants.parameter("asOf", null)).isNull();
    }

    @Test
    void anInstantJavaParsesButPostgresCannotStoreIsRefusedAsMalformed() {
        assertThatThrownBy(() -> Instants.parse("+10000-01-01T00:00:00Z")).isInstanceOf(DateTimeParseException.class);
        assertThatThrownBy(() -> Instants.parse("-0001-12-31T00:00:00Z")).isInstanceOf(DateTimeParseException.class);
        assertThatThrownBy(() -> Instants.parameter("asOf", "+1000000-01-01T00:00:00Z")).isInstanceOfSatisfying(ProblemException.class,
                problem -> assertThat(problem.getMessage()).contains("asOf must be an ISO-8601 instant"));
        assertThatThrownBy(() -> Instants.parameter("asOf", "yesterday")).isInstanceOf(ProblemException.class);
    }

    @Test
    void aJsonBodysInstantOutsideTheYearsIsUnreadable() throws Exception {
        ObjectMapper mapper = new ObjectMapper().registerModule(new JavaTimeModule());
        new BoundedInstants().customize(mapper);
        assertThat(mapper.readValue("{\"occurredAt\": \"2026-11-28T09:00:00Z\"}", Body.class).occurredAt())
                .isEqualTo(Instant.parse("2026-11-28T09:00:00Z"));
        assertThat(mapper.readValue("{\"occurredAt\": null}", Body.class).occurredAt()).isNull();
        assertThatThrownBy(() -> mapper.readValue("{\"occurredAt\": \"+10000-01-01T00:00:00Z\"}", Body.class))
                .isInstanceOf(InvalidFormatException.class);
    }
}
