package dev.umbra.devstack;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
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

    private DevstackCli() {
    }

    public static void main(String[] args) throws InterruptedException {
        KAFKA_CLIENTS.setLevel(Level.WARNING);
        List<String> arguments = Arrays.asList(args);
        boolean stackOnly = arguments.contains("--stack-only");
        List<String> services = arguments.stream().filter(a -> !a.startsWith("--")).toList();
        Path repoRoot = Path.of(System.getProperty("umbra.repo.root", ".")).toAbsolutePath().normalize();

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
            stopped.countDown();
        }));

        System.out.printf("devstack up in %d ms (logs in %s)%n", stack.startTime().toMillis(), stack.workDir());
        System.out.printf("  postgres       %s  user %s  password %s%n", stack.postgres().jdbcUrl("<service>"),
                stack.postgres().user(), stack.postgres().password());
        System.out.printf("  kafka          %s%n", stack.kafka().bootstrapServers());
        System.out.printf("  kafka connect  %s/connectors%n", stack.connect().url());
        System.out.printf("  discord (sandbox) %s  (GET /sandbox/messages; POST /sandbox/faults {\"mode\":\"fail\"|\"hang\"|\"none\"})%n",
                stack.discord().url());
        System.out.printf("  payment gateway (sandbox) %s  (controls on %s: GET /sandbox/charges, /sandbox/requests, /sandbox/callbacks;%n"
                + "                 POST /sandbox/faults {\"mode\":\"fail\"|\"fail-ratio\"|\"refuse\"|\"drop\"|\"late-answer\"|\"reset\"|\"pending\"|\"decline\"|"
                + "\"lose-callbacks\"|\"duplicate-callbacks\"|\"late-callbacks\"|\"none\", \"count\":n}; POST /sandbox/payments/{key}/settle)%n",
                stack.paymentGateway().url(), stack.paymentGateway().controlUrl());
        if (system != null) {
            for (ServiceProcess service : system.services()) {
                System.out.printf("  %-17s %s  management %s (/q/health, /q/metrics, /q/openapi)%n", service.name(), service.url(),
                        service.managementUrl());
            }
        }
        System.out.printf("  bot token      %s%n", stack.jwt().mint("discord-bot", List.of("bot"), JwtKeys.MAX_LIFETIME));
        System.out.printf("  admin token    %s%n", stack.jwt().mint("local-admin", List.of("admin"), JwtKeys.MAX_LIFETIME));
        System.out.printf("  (the tokens expire in %d minutes: services accept none that lives longer)%n",
                JwtKeys.MAX_LIFETIME.toMinutes());
        System.out.println("Ctrl-C stops everything and deletes its data.");
        stopped.await();
    }
}
