package dev.umbra.billing.billingkey;

import io.smallrye.config.ConfigMapping;
import jakarta.validation.constraints.Min;
import java.util.Map;

/**
 * {@code umbra.billing-key.encryption.*}: the AES-256 keys (Base64 of 32 bytes) by version and the
 * version that encrypts. No value is in the repository: devstack generates a key per run, production
 * takes it from its secret store.
 */
@ConfigMapping(prefix = "umbra.billing-key.encryption")
public interface BillingKeyEncryptionSettings {

    @Min(1)
    int currentVersion();

    Map<Integer, String> keys();
}
