package dev.umbra.billing.settings;

import dev.umbra.billing.subscription.DunningSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.time.Duration;

/** {@code umbra.billing.*}: the production values are the defaults here; the test profile shortens nothing it does not need to. */
@ConfigMapping(prefix = "umbra.billing")
public interface BillingSettings {

    Dunning dunning();

    Renewals renewals();

    ClockControl clockControl();

    interface Dunning {
        /** How long after a failed renewal it is tried again. */
        @WithDefault("PT24H")
        Duration retryInterval();

        /** The failure that cancels the subscription (PaymentFailedFinal). */
        @WithDefault("4")
        @Min(1)
        int maxFailures();

        default DunningSettings rules() {
            return new DunningSettings(retryInterval(), maxFailures());
        }
    }

    interface Renewals {
        /** How often the scan looks for subscriptions whose renewal (or end) is due. */
        @WithDefault("PT1M")
        Duration scanInterval();

        /** Subscriptions a scan reads and puts on the renewal queue per transaction; a scan reads every due one, page after page. */
        @WithDefault("500")
        @Min(1)
        int scanLimit();
    }

    interface ClockControl {
        /** The test-only endpoint that moves the service's clock; off unless a test or local profile turns it on. */
        @WithDefault("false")
        boolean enabled();
    }
}
