package dev.umbra.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A field of a test that {@link DevstackResource} fills: {@link Database} (the service's own database),
 * {@link InboxProbe} (what its inbox has applied), {@link TcpProxy} (between the service and Postgres),
 * {@code Devstack}, {@code PaymentGatewaySandbox} or {@code DiscordSandbox}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface InjectDevstack {
}
