package dev.umbra.audit.query;

import java.util.List;

/** A page of a listing; {@code next} is the cursor of the page after it, null on the last page. */
public record AuditPage(List<AuditEntry> events, String next) {
}
