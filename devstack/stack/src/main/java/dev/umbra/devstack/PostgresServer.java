package dev.umbra.devstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The machine's PostgreSQL (Debian's packages, 15 or newer) in a throw-away cluster with
 * {@code wal_level=logical}. PostgreSQL refuses to run as root, so as root the cluster belongs to
 * {@code nobody} and every server command runs through {@code setpriv}.
 */
public final class PostgresServer implements AutoCloseable {

    static final String USER = "umbra";
    private static final String UNPRIVILEGED_USER = "nobody";
    private static final String LOG = "postgres.log";
    private static final String PASSWORD_FILE = "pg-password";

    private final Path workDir;
    private final Path dataDir;
    private final int port;
    private final String password;
    private final List<String> command;
    private final Map<String, ServiceRole> serviceRoles = new ConcurrentHashMap<>();
    private volatile ChildProcess process;

    /**
     * The role a service logs in as to its database: it reads and writes rows and owns nothing, so it can change
     * no table, trigger or function. The service's migrations run as the database's owner, {@link #user()}.
     */
    public record ServiceRole(String name, String password) {
    }

    private PostgresServer(Path workDir, Path dataDir, int port, String password, List<String> command) {
        this.workDir = workDir;
        this.dataDir = dataDir;
        this.port = port;
        this.password = password;
        this.command = command;
    }

    static PostgresServer start(Path workDir, String password) {
        Path binDir = findBinaries();
        Path dataDir = workDir.resolve("postgres");
        Path passwordFile = workDir.resolve(PASSWORD_FILE);
        Path log = workDir.resolve(LOG);
        try {
            Files.createDirectories(dataDir);
            Files.deleteIfExists(passwordFile);
            Files.createFile(passwordFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(passwordFile, password);
            if (isRoot()) {
                chown(List.of(dataDir, passwordFile), workDir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChildProcess.run("initdb", asServerUser(List.of(binDir.resolve("initdb").toString(),
                "-D", dataDir.toString(), "-U", USER, "--pwfile=" + passwordFile, "--auth=scram-sha-256",
                "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")), workDir, log, Duration.ofSeconds(60));

        int port = Ports.free();
        List<String> command = asServerUser(List.of(binDir.resolve("postgres").toString(),
                "-D", dataDir.toString(),
                "-c", "listen_addresses=127.0.0.1",
                "-c", "port=" + port,
                "-c", "unix_socket_directories=",
                "-c", "wal_level=logical",
                "-c", "max_replication_slots=20",
                // A slot nobody reads (a stopped connector, a test that never streams) may not fill the disk:
                // past this much WAL PostgreSQL invalidates it (docs/operations.md says what then).
                "-c", "max_slot_wal_keep_size=1GB",
                "-c", "max_wal_senders=20",
                "-c", "max_connections=200",
                "-c", "shared_buffers=128MB"));
        PostgresServer server = new PostgresServer(workDir, dataDir, port, password, command);
        server.launch();
        return server;
    }

    private void launch() {
        process = ChildProcess.start("postgres", command, workDir, log(), Map.of());
        Await.until("postgres on port " + port, Duration.ofSeconds(30), process, this::acceptsConnections);
    }

    /**
     * Stops the server as an operator's {@code pg_ctl stop -m fast} would (SIGINT: clients are disconnected, the
     * server checkpoints and exits); {@link #restart} brings it back on its port with its data.
     */
    public void stop() {
        close();
    }

    /** Starts a stopped server again; returns once it accepts connections. */
    public void restart() {
        launch();
    }

    /** The server's log ({@code log_line_prefix} '%m [%p] '), kept across restarts. */
    public Path log() {
        return workDir.resolve(LOG);
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    public String user() {
        return USER;
    }

    public String password() {
        return password;
    }

    /** Where the password is kept for the run, readable by its owner only. */
    public Path passwordFile() {
        return workDir.resolve(PASSWORD_FILE);
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + host() + ":" + port + "/" + database;
    }

    /** The URL form of Quarkus' reactive PostgreSQL client. */
    public String reactiveUrl(String database) {
        return "postgresql://" + host() + ":" + port + "/" + database;
    }

    /** Creates the database, unless it exists, and its service's role ({@link #serviceRole}). */
    public void createDatabase(String name) {
        if (!name.matches("[a-z][a-z0-9_]*")) {
            throw new IllegalArgumentException("not a database name: " + name);
        }
        try (Connection connection = connect("postgres"); Statement statement = connection.createStatement()) {
            var existing = statement.executeQuery("select 1 from pg_database where datname = '" + name + "'");
            if (!existing.next()) {
                statement.execute("create database " + name);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        serviceRole(name);
    }

    /**
     * The login role of the service whose database is {@code database} ({@link #serviceRoleName}): made on first use
     * with a password of this run (kept in memory only). Its rights in the database are the migrations' to give.
     */
    public ServiceRole serviceRole(String database) {
        return serviceRoles.computeIfAbsent(database, this::createServiceRole);
    }

    /** The name of the role a service logs in as, by its database's name: here, in docker-compose and on Kubernetes. */
    public static String serviceRoleName(String database) {
        return database + "_app";
    }

    private ServiceRole createServiceRole(String database) {
        byte[] secret = new byte[16];
        new SecureRandom().nextBytes(secret);
        ServiceRole role = new ServiceRole(serviceRoleName(database), HexFormat.of().formatHex(secret));
        try (Connection connection = connect("postgres"); Statement statement = connection.createStatement()) {
            var existing = statement.executeQuery("select 1 from pg_roles where rolname = '" + role.name() + "'");
            String verb = existing.next() ? "alter" : "create";
            statement.execute(verb + " role " + role.name() + " login password '" + role.password() + "'");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the role " + role.name(), e);
        }
        return role;
    }

    /** Drops the replication slots and publications Debezium left behind in a database. */
    public void dropReplicationState(String database) {
        try (Connection connection = connect(database); Statement statement = connection.createStatement()) {
            statement.execute("select pg_drop_replication_slot(slot_name) from pg_replication_slots "
                    + "where database = current_database() and not active");
            List<String> publications = new ArrayList<>();
            try (var rows = statement.executeQuery("select pubname from pg_publication")) {
                while (rows.next()) {
                    publications.add(rows.getString(1));
                }
            }
            for (String publication : publications) {
                statement.execute("drop publication if exists \"" + publication + "\"");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot drop replication state of " + database, e);
        }
    }

    public Connection connect(String database) throws SQLException {
        return connect(database, USER, password);
    }

    /** A connection as the service's role ({@link #serviceRole}), to check what the service may and may not do. */
    public Connection connectAsService(String database) throws SQLException {
        ServiceRole role = serviceRole(database);
        return connect(database, role.name(), role.password());
    }

    private Connection connect(String database, String user, String password) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.setProperty("connectTimeout", "2");
        return DriverManager.getConnection(jdbcUrl(database), properties);
    }

    private boolean acceptsConnections() {
        try (Connection ignored = connect("postgres")) {
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    @Override
    public void close() {
        // SIGTERM is PostgreSQL's "smart" shutdown, which waits for clients; SIGINT is the fast one.
        if (process.isAliveQuietly()) {
            ChildProcess.signal(process.pid(), "INT");
        }
        process.stop(Duration.ofSeconds(20));
    }

    long pid() {
        return process.pid();
    }

    Path dataDir() {
        return dataDir;
    }

    private static List<String> asServerUser(List<String> command) {
        if (!isRoot()) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(List.of("setpriv", "--reuid=" + UNPRIVILEGED_USER,
                "--regid=nogroup", "--clear-groups", "--"));
        wrapped.addAll(command);
        return wrapped;
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** The data directory must belong to the server's user, and every folder above it must let that user through. */
    private static void chown(List<Path> paths, Path workDir) throws IOException {
        Files.setPosixFilePermissions(workDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        for (Path path : paths) {
            Files.setAttribute(path, "posix:owner",
                    path.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(UNPRIVILEGED_USER));
        }
        Files.setPosixFilePermissions(paths.get(0), PosixFilePermissions.fromString("rwx------"));
    }

    /** {@code UMBRA_PG_BIN}, else the newest {@code /usr/lib/postgresql/<version>/bin}, else {@code pg_config --bindir}. */
    static Path findBinaries() {
        String configured = System.getenv("UMBRA_PG_BIN");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                var newest = versions.map(v -> v.resolve("bin"))
                        .filter(bin -> Files.isExecutable(bin.resolve("postgres")))
                        .max(Comparator.comparingInt(bin -> Integer.parseInt(bin.getParent().getFileName().toString().replaceAll("\\D", "0"))));
                if (newest.isPresent()) {
                    return newest.get();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        try {
            Process pgConfig = new ProcessBuilder("pg_config", "--bindir").start();
            String bin = new String(pgConfig.getInputStream().readAllBytes()).trim();
            if (pgConfig.waitFor() == 0 && Files.isExecutable(Path.of(bin, "postgres"))) {
                return Path.of(bin);
            }
        } catch (IOException e) {
            // fall through to the error below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new IllegalStateException("PostgreSQL server binaries not found: install Debian's postgresql package "
                + "or set UMBRA_PG_BIN to the folder holding initdb and postgres");
    }
}
