package dev.umbra.devstack;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a readiness condition of a server that devstack started. */
final class Await {

    private Await() {
    }

    static void until(String what, Duration timeout, ChildProcess process, BooleanSupplier ready) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (process != null) {
                process.ensureAlive();
            }
            if (ready.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + " not ready within " + timeout
                        + (process == null ? "" : ":\n" + process.tail()));
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }
}
