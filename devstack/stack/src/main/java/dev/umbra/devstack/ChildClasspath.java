package dev.umbra.devstack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The classpath of a child server, resolved by Maven at build time (modules devstack/*-classpath). */
final class ChildClasspath {

    private ChildClasspath() {
    }

    static String read(String name) {
        String resource = "META-INF/umbra/devstack/" + name + ".classpath";
        try (InputStream in = ChildClasspath.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing: build devstack with Maven first");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
