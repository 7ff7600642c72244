package dev.umbra.e2e.bench;

import dev.umbra.devstack.Devstack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** PostgreSQL's pgbench against devstack's server, as the reference of what the database does without a service in front. */
final class Pgbench {

    private Pgbench() {
    }

    /** Runs pgbench with {@code arguments} on {@code database} in {@code work}; returns its output, fails if it failed. */
    static String run(Devstack stack, Path work, String database, String... arguments) throws Exception {
        Path pgbench = Path.of(System.getenv().getOrDefault("UMBRA_PG_BIN", "/usr/lib/postgresql/15/bin"), "pgbench");
        List<String> command = new ArrayList<>(List.of(pgbench.toString(), "-h", stack.postgres().host(), "-p",
                Integer.toString(stack.postgres().port()), "-U", stack.postgres().user(), "-n"));
        command.addAll(List.of(arguments));
        command.add(database);
        Path output = work.resolve("pgbench.out");
        ProcessBuilder builder = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().put("PGPASSWORD", stack.postgres().password());
        int exit = builder.start().waitFor();
        String out = Files.readString(output);
        if (exit != 0) {
            throw new IllegalStateException("pgbench failed: " + out);
        }
        return out;
    }
}
