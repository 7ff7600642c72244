package dev.umbra.licensing.license;

public enum LicenseStatus {
    ACTIVE, SUSPENDED, CANCELED
}
