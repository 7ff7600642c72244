package dev.umbra.licensing.license;

import java.time.Instant;
import java.util.UUID;

public record LicenseView(UUID licenseId, String guildId, Plan plan, LicenseStatus status, Instant expiresAt) {

    static LicenseView of(License license) {
        return new LicenseView(license.licenseId, license.guildId, license.plan, license.status, license.expiresAt);
    }
}
