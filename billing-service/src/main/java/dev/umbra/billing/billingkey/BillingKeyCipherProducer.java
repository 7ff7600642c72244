package dev.umbra.billing.billingkey;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

@ApplicationScoped
class BillingKeyCipherProducer {

    @Produces
    @Singleton
    BillingKeyCipher cipher(BillingKeyEncryptionSettings settings) {
        return BillingKeyCipher.fromBase64(settings.currentVersion(), settings.keys());
    }
}
