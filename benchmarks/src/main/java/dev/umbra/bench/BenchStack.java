package dev.umbra.bench;

import dev.umbra.devstack.Devstack;

/** Devstack for a benchmark: Kafka and Connect with the JIT they run with in production, not the build's quick-start options. */
final class BenchStack {

    private BenchStack() {
    }

    static Devstack shared() {
        System.clearProperty("umbra.devstack.jvm-options");
        return Devstack.shared();
    }
}
