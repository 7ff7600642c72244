package dev.umbra.devstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** A server started by devstack: its own process, its output in a log file, stopped gently then forcibly. */
final class ChildProcess implements AutoCloseable {

    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();

    private final String name;
    private final Process process;
    private final Path log;

    private ChildProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    static ChildProcess start(String name, List<String> command, Path workDir, Path log, Map<String, String> env) {
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(env);
        try {
            Process process = builder.start();
            ClassArchive.publishOnExit(process, command);
            RUNNING.add(process);
            process.onExit().thenAccept(RUNNING::remove);
            return new ChildProcess(name, process, log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + command, e);
        }
    }

    /** Runs a command to completion and fails with its output when it exits non-zero. */
    static void run(String name, List<String> command, Path workDir, Path log, Duration timeout) {
        ChildProcess child = start(name, command, workDir, log, Map.of());
        try {
            if (!child.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                child.process.destroyForcibly();
                throw new IllegalStateException(name + " did not finish within " + timeout + "; see " + log);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + name, e);
        }
        if (child.process.exitValue() != 0) {
            throw new IllegalStateException(name + " failed with exit code " + child.process.exitValue() + ":\n" + child.tail());
        }
    }

    static List<String> javaCommand(List<String> jvmOptions, String classpath, String mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(ClassArchive.options(mainClass, classpath));
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(List.of(args));
        return command;
    }

    /** Kills every child still running: for a JVM that stops before it could close what it had started. */
    static void killAll() {
        RUNNING.forEach(Process::destroyForcibly);
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean isAliveQuietly() {
        return process.isAlive();
    }

    static void signal(long pid, String signal) {
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start().waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    void ensureAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException(name + " exited with code " + process.exitValue() + ":\n" + tail());
        }
    }

    /**
     * {@link #ensureAlive}, after giving the process {@code settle} to exit: a refused or dropped connection to it may
     * be the process dying, and its own last lines say why better than the socket does.
     */
    void ensureAliveAfter(Duration settle) {
        try {
            process.waitFor(settle.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ensureAlive();
    }

    String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    /** SIGKILL, and waits until the process is gone. */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sends SIGTERM and waits; kills the process if it does not stop in time. */
    void stop(Duration grace) {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(15));
    }
}
