package dev.umbra.devstack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code java -jar devstack.jar [--stack-only] [service…]}: starts devstack and the packaged services
 * of {@link ServiceRegistry} (all, or those named), prints where everything is, and on Ctrl-C stops it
 * all and deletes its data.
 */
public final class DevstackCli {

    /** Held so the level sticks: the Kafka clients' INFO is their whole configuration, on every probe of the broker. */
    private static final Logger KAFKA_CLIENTS = Logger.getLogger("org.apache.kafka");

    /** Well within the tokens' lifetime, so a sourced file is always good for another half hour. */
    private static final Duration TOKEN_REFRESH = Duration.ofMinutes(30);

    private DevstackCli() {
    }

    /** Written whole and then moved into place: a reader never sees half a file; readable by its owner only. */
    static void writeTokens(Devstack stack, Path file) {
        try {
            Files.createDirectories(file.getParent());
            Path partial = file.resolveSibling(file.getFileName() + ".partial");
            Files.deleteIfExists(partial);
            Files.createFile(partial, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(partial, "export BOT_TOKEN=" + stack.jwt().mint("discord-bot", List.of("bot"), JwtKeys.MAX_LIFETIME)
                    + "\nexport ADMIN_TOKEN=" + stack.jwt().mint("local-admin", List.of("admin"), JwtKeys.MAX_LIFETIME) + "\n");
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            System.err.println("could not write fresh tokens to " + file + ": " + e);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        KAFKA_CLIENTS.setLevel(Level.WARNING);
        List<String> arguments = Arrays.asList(args);
        boolean stackOnly = arguments.contains("--stack-only");
        List<String> services = arguments.stream().filter(a -> !a.startsWith("-")).toList();
        List<String> known = ServiceRegistry.SERVICES.stream().map(UmbraService::name).toList();
        String usage = "usage: devstack.jar [--stack-only] [service…]   (services: " + String.join(", ", known) + "; all when none is named)";
        // checked before anything starts: --help, or a typo, must not start the whole system
        if (arguments.contains("--help") || arguments.contains("-h")) {
            System.out.println(usage);
            return;
        }
        List<String> unknown = arguments.stream().filter(a -> a.startsWith("-") ? !a.equals("--stack-only") : !known.contains(a)).toList();
        if (!unknown.isEmpty()) {
            System.err.println("unknown argument(s) " + unknown + "\n" + usage);
            System.exit(2);
        }
        Path repoRoot = Path.of(System.getProperty("umbra.repo.root", ".")).toAbsolutePath().normalize();
        Path tokens = repoRoot.resolve(".run-local").resolve("tokens.env");

        // Ctrl-C while the stack or the services are still starting: nothing can be closed in order yet
        Thread killStarted = new Thread(ChildProcess::killAll, "devstack-abandon-start");
        Runtime.getRuntime().addShutdownHook(killStarted);
        Devstack stack = Devstack.start();
        LocalSystem system;
        try {
            system = stackOnly ? null : LocalSystem.start(stack, repoRoot, true, services);
        } catch (RuntimeException e) {
            stack.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("stopping…");
            if (system != null) {
                system.close();
            }
            stack.close();
            try {
                Files.deleteIfExists(tokens);
            } catch (IOException e) {
                System.err.println("could not delete " + tokens + ": " + e);
            }
            stopped.countDown();
        }));
        Runtime.getRuntime().removeShutdownHook(killStarted);

        System.out.printf("devstack up in %d ms (logs in %s)%n", stack.startTime().toMillis(), stack.workDir());
        System.out.printf("  postgres       %s  user %s  password in %s%n", stack.postgres().jdbcUrl("<service>"),
                stack.postgres().user(), stack.postgres().passwordFile());
        System.out.printf("  kafka          %s%n", stack.kafka().bootstrapServers());
        System.out.printf("  kafka connect  %s/connectors%n", stack.connect().url());
        System.out.printf("  discord (sandbox) %s  (GET /sandbox/messages; POST /sandbox/faults {\"mode\":\"fail\"|\"hang\"|\"rate-limit\"|\"reject\"|\"lose-create-answers\"|\"none\"})%n",
                stack.discord().url());
        System.out.printf("  payment gateway (sandbox) %s  (controls on %s: GET /sandbox/charges, /sandbox/requests, /sandbox/callbacks;%n"
                + "                 POST /sandbox/faults {\"mode\":\"fail\"|\"fail-ratio\"|\"refuse\"|\"drop\"|\"late-answer\"|\"reset\"|\"pending\"|\"decline\"|"
                + "\"late-cancel-answer\"|\"cancel-reset\"|\"refuse-cancels\"|\"lose-callbacks\"|\"duplicate-callbacks\"|\"late-callbacks\"|\"none\", \"count\":n}; POST /sandbox/payments/{key}/settle)%n",
                stack.paymentGateway().url(), stack.paymentGateway().controlUrl());
        if (system != null) {
            for (ServiceProcess service : system.services()) {
                System.out.printf("  %-17s %s  management %s (/q/health, /q/metrics, /q/openapi)%n", service.name(), service.url(),
                        service.managementUrl());
            }
        }
        writeTokens(stack, tokens);
        // The console is often a shared terminal, a CI log or a screen share: secrets go to owner-only files, not to it.
        System.out.printf("  tokens         source %s for BOT_TOKEN and ADMIN_TOKEN (rewritten every %d minutes; a token lives%n"
                + "                 %d minutes: services accept none that lives longer)%n",
                repoRoot.relativize(tokens), TOKEN_REFRESH.toMinutes(), JwtKeys.MAX_LIFETIME.toMinutes());
        ScheduledExecutorService refresher = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "token-refresher");
            thread.setDaemon(true);
            return thread;
        });
        refresher.scheduleAtFixedRate(() -> writeTokens(stack, tokens), TOKEN_REFRESH.toMinutes(), TOKEN_REFRESH.toMinutes(),
                TimeUnit.MINUTES);
        System.out.println("Ctrl-C stops everything and deletes its data.");
        stopped.await();
    }
}
