package dev.umbra.audit.query;

import dev.umbra.platform.web.Instants;
import dev.umbra.platform.web.ProblemException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * One page's question to the audit log, checked: what to filter by, in which order, from where on.
 *
 * @param from     occurred_at at or after (inclusive), or null
 * @param to       occurred_at before (exclusive), or null
 * @param knownAt  only events recorded (committed by their producer) by then: what was known at that instant
 * @param snapshot only rows this service had stored by then: pinned by the first page, so that the
 *                 pages of one listing never change under events arriving meanwhile
 * @param after    the position after which this page starts (the last row of the page before), or null
 */
public record AuditQuery(String guildId, String aggregateType, String aggregateId, String eventType, Instant from, Instant to,
        Instant knownAt, Order order, int limit, Instant snapshot, Position after) {

    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 500;
    private static final Pattern DISCORD_ID = Pattern.compile("\\d{17,20}");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,128}");

    public enum Order {
        /** oldest first: a timeline */
        ASC,
        /** newest first: the latest events */
        DESC
    }

    /** A row's place in the order: its occurred_at, then its event id. */
    public record Position(Instant occurredAt, UUID eventId) {
    }

    /** The raw request parameters, any of them null. */
    public record Parameters(String guildId, String aggregateType, String aggregateId, String eventType, String from, String to,
            String knownAt, String order, String limit, String cursor) {
    }

    /** Checks the parameters (400 with the reason for the first that is wrong); a first page pins its snapshot at {@code now}. */
    public static AuditQuery of(Parameters p, Order defaultOrder, Instant now) {
        if (p.guildId() != null && !DISCORD_ID.matcher(p.guildId()).matches()) {
            throw ProblemException.badRequest("guildId must be a Discord id (17 to 20 digits)");
        }
        requireName("aggregateType", p.aggregateType());
        requireName("eventType", p.eventType());
        if (p.aggregateId() != null && (p.aggregateType() == null || p.aggregateId().isBlank() || p.aggregateId().length() > 128)) {
            throw ProblemException.badRequest("aggregateId needs aggregateType, and is 1 to 128 characters");
        }
        Instant from = instant("from", p.from());
        Instant to = instant("to", p.to());
        if (from != null && to != null && !from.isBefore(to)) {
            throw ProblemException.badRequest("from must be before to");
        }
        Instant knownAt = instant("knownAt", p.knownAt());
        Order order = p.order() == null ? defaultOrder : order(p.order());
        int limit = limit(p.limit());
        if (p.cursor() == null) {
            return new AuditQuery(p.guildId(), p.aggregateType(), p.aggregateId(), p.eventType(), from, to, knownAt, order, limit, now, null);
        }
        Cursor cursor = Cursor.decode(p.cursor());
        if (cursor.order() != order) {
            throw ProblemException.badRequest("the cursor belongs to a listing in " + cursor.order().name().toLowerCase(Locale.ROOT) + " order");
        }
        return new AuditQuery(p.guildId(), p.aggregateType(), p.aggregateId(), p.eventType(), from, to, knownAt, order, limit,
                cursor.snapshot(), cursor.after());
    }

    /** The cursor of the page after the one that ended at {@code last}. */
    public String cursorAfter(Position last) {
        return new Cursor(order, snapshot, last).encode();
    }

    private static void requireName(String parameter, String value) {
        if (value != null && !NAME.matcher(value).matches()) {
            throw ProblemException.badRequest(parameter + " must be 1 to 128 letters, digits, '_', '.' or '-'");
        }
    }

    private static Instant instant(String parameter, String value) {
        return value == null ? null : Instants.parameter(parameter, value);
    }

    private static Order order(String value) {
        try {
            return Order.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ProblemException.badRequest("order must be asc or desc");
        }
    }

    private static int limit(String value) {
        if (value == null) {
            return DEFAULT_LIMIT;
        }
        try {
            int limit = Integer.parseInt(value);
            if (limit >= 1 && limit <= MAX_LIMIT) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ProblemException.badRequest("limit must be a whole number from 1 to " + MAX_LIMIT);
    }

    /** Opaque to clients: the order, the pinned snapshot and the position, as base64url text. */
    private record Cursor(Order order, Instant snapshot, Position after) {

        String encode() {
            String text = order + "|" + snapshot + "|" + after.occurredAt() + "|" + after.eventId();
            return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
        }

        static Cursor decode(String cursor) {
            try {
                String[] parts = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8).split("\\|");
                if (parts.length != 4) {
                    throw new IllegalArgumentException("not four parts");
                }
                return new Cursor(Order.valueOf(parts[0]), Instants.parse(parts[1]),
                        new Position(Instants.parse(parts[2]), UUID.fromString(parts[3])));
            } catch (IllegalArgumentException | DateTimeParseException e) {
                throw ProblemException.badRequest("cursor is not one this service gave out");
            }
        }
    }
}
