package dev.umbra.recovery.discord;

import io.smallrye.mutiny.Uni;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;

/** {@link BotUser}s for tests that need Discord's answer about the bot to be other than the sandbox's. */
public final class BotUsers {

    private BotUsers() {
    }

    /** Asked while Discord's circuit is open: every question fails without reaching Discord. */
    public static BotUser behindAnOpenCircuit() {
        return new BotUser(() -> Uni.createFrom().failure(new CircuitBreakerOpenException("recovery-discord circuit breaker is open")));
    }
}
