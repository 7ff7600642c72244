package dev.umbra.bench;

import dev.umbra.devstack.Devstack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** PostgreSQL's pgbench (and pg_dump, psql) against devstack's server: the reference of what the database does without a service in front. */
final class Pgbench {

    private Pgbench() {
    }

    /** Runs pgbench with {@code arguments} on {@code database} in {@code work}; returns its output, fails if it failed. */
    static String run(Devstack stack, Path work, String database, String... arguments) throws Exception {
        List<String> all = new ArrayList<>(List.of("-n"));
        all.addAll(List.of(arguments));
        return tool(stack, work, "pgbench", database, all);
    }

    /**
     * An empty database {@code copy} with the definitions of {@code tables} of {@code database} (pg_dump
     * of the schema): the same statements run there without feeding the original's outbox connector.
     */
    static void copySchema(Devstack stack, Path work, String database, String copy, String... tables) throws Exception {
        stack.postgres().createDatabase(copy);
        List<String> dump = new ArrayList<>(List.of("--schema-only", "--no-owner", "--no-privileges", "-f", work.resolve("schema.sql").toString()));
        for (String table : tables) {
            dump.addAll(List.of("-t", table));
        }
        tool(stack, work, "pg_dump", database, dump);
        // pg_dump -t brings a table's triggers but not the functions they call (the outbox's, V0_7)
        for (String table : tables) {
            String functions = tool(stack, work, "psql", database, List.of("-Atq", "-c", "select string_agg(pg_get_functiondef(tgfoid), ';' || chr(10))"
                    + " || ';' from pg_trigger where tgrelid = '" + table + "'::regclass and not tgisinternal"));
            if (!functions.isBlank()) {
                Files.writeString(work.resolve("functions.sql"), functions);
                tool(stack, work, "psql", copy, List.of("-q", "-v", "ON_ERROR_STOP=1", "-f", work.resolve("functions.sql").toString()));
            }
        }
        tool(stack, work, "psql", copy, List.of("-q", "-v", "ON_ERROR_STOP=1", "-f", work.resolve("schema.sql").toString()));
    }

    private static String tool(Devstack stack, Path work, String tool, String database, List<String> arguments) throws Exception {
        Path binary = Path.of(System.getenv().getOrDefault("UMBRA_PG_BIN", "/usr/lib/postgresql/15/bin"), tool);
        List<String> command = new ArrayList<>(List.of(binary.toString(), "-h", stack.postgres().host(), "-p",
                Integer.toString(stack.postgres().port()), "-U", stack.postgres().user()));
        command.addAll(arguments);
        command.add(database);
        Path output = work.resolve(tool + ".out");
        ProcessBuilder builder = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().put("PGPASSWORD", stack.postgres().password());
        int exit = builder.start().waitFor();
        String out = Files.readString(output);
        if (exit != 0) {
            throw new IllegalStateException(tool + " failed: " + out);
        }
        return out;
    }
}
