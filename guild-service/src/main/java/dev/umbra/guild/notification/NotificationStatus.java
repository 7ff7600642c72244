package dev.umbra.guild.notification;

import java.util.Locale;

/** pending → processing → completed | failed → (retry) | dead_letter: the integration outbox of docs/architecture.md. */
public enum NotificationStatus {
    PENDING, PROCESSING, COMPLETED, FAILED, DEAD_LETTER;

    public String column() {
        return name().toLowerCase(Locale.ROOT);
    }
}
