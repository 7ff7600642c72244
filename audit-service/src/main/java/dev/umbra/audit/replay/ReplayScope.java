package dev.umbra.audit.replay;

import dev.umbra.platform.web.Instants;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Which stored events a replay re-publishes: one aggregate, every aggregate of a type, or a range of
 * occurred_at, alone or together. Checked here, in plain Java: an aggregate id needs its type, a range
 * its both ends in order, and a replay of nothing at all (the whole log) is refused.
 */
public record ReplayScope(String aggregateType, String aggregateId, Instant from, Instant to) {

    /** What a caller sends; every field optional. */
    public record Request(String aggregateType, String aggregateId, String from, String to) {
    }

    public static final class InvalidScopeException extends RuntimeException {
        InvalidScopeException(String message) {
            super(message);
        }
    }

    public static ReplayScope of(Request request) {
        if (request == null) {
            throw new InvalidScopeException("a replay names aggregateType (and optionally aggregateId), or a range from/to, or both");
        }
        String type = blankToNull(request.aggregateType());
        String id = blankToNull(request.aggregateId());
        Instant from = instant("from", request.from());
        Instant to = instant("to", request.to());
        if (id != null && type == null) {
            throw new InvalidScopeException("aggregateId needs its aggregateType");
        }
        if ((from == null) != (to == null)) {
            throw new InvalidScopeException("a range needs both from and to");
        }
        if (from != null && !from.isBefore(to)) {
            throw new InvalidScopeException("from must be before to");
        }
        if (type == null && from == null) {
            throw new InvalidScopeException("a replay names aggregateType (and optionally aggregateId), or a range from/to, or both");
        }
        if (type != null && !type.matches("[a-z_]{1,64}")) {
            throw new InvalidScopeException("aggregateType is lower case letters and '_'");
        }
        if (id != null && id.length() > 128) {
            throw new InvalidScopeException("aggregateId is at most 128 characters");
        }
        return new ReplayScope(type, id, from, to);
    }

    /** The same events, the same key: two replays with one key never run at once. */
    public String key() {
        return part(aggregateType) + "/" + part(aggregateId) + "/" + part(from) + "/" + part(to);
    }

    private static String part(Object value) {
        return value == null ? "*" : value.toString();
    }

    private static Instant instant(String name, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Instants.parse(value);
        } catch (DateTimeParseException e) {
            throw new InvalidScopeException(name + " is " + Instants.EXPECTED);
        }
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }
}
