package dev.umbra.audit.retention;

import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which month tables ({@code <table>_YYYY_MM}: partitions, and tables staged for a default partition's rows and not attached
 * yet) retention drops: those whose whole month is older than what is kept.
 */
public final class MonthPartitions {

    private static final Pattern MONTH_PARTITION = Pattern.compile("(audit_log|audit_guild)_(\\d{4}_\\d{2})");
    private static final DateTimeFormatter MONTH = DateTimeFormatter.ofPattern("yyyy_MM");

    private MonthPartitions() {
    }

    /** The first instant still kept: the start of the month {@code keepMonths} before the current one (UTC). */
    public static Instant keptFrom(Instant now, int keepMonths) {
        return YearMonth.from(now.atZone(ZoneOffset.UTC)).minusMonths(keepMonths).atDay(1).atStartOfDay(ZoneOffset.UTC).toInstant();
    }

    /** The partitions among {@code names} whose month ends at or before {@code keptFrom}; other tables and the default partitions are never named. */
    public static List<String> toDrop(Collection<String> names, Instant keptFrom) {
        YearMonth firstKept = YearMonth.from(keptFrom.atZone(ZoneOffset.UTC));
        return names.stream().filter(name -> monthOf(name).filter(month -> month.isBefore(firstKept)).isPresent()).sorted().toList();
    }

    static Optional<YearMonth> monthOf(String name) {
        Matcher matcher = MONTH_PARTITION.matcher(name);
        return matcher.matches() ? Optional.of(YearMonth.parse(matcher.group(2), MONTH)) : Optional.empty();
    }
}
