package dev.umbra.licensing.license;

public enum Plan {
    FREE, PRO, PREMIUM
}
