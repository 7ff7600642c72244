package dev.umbra.devstack;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/** {@code java -jar devstack.jar}: starts the stack, prints where everything is, stops it on Ctrl-C. */
public final class DevstackCli {

    private DevstackCli() {
    }

    public static void main(String[] args) throws InterruptedException {
        Devstack stack = Devstack.start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("stopping devstack…");
            stack.close();
            stopped.countDown();
        }));
        System.out.printf("devstack up in %d ms%n", stack.startTime().toMillis());
        System.out.printf("  postgres     %s (user %s, password %s)%n", stack.postgres().jdbcUrl("postgres"),
                stack.postgres().user(), stack.postgres().password());
        System.out.printf("  kafka        %s%n", stack.kafka().bootstrapServers());
        System.out.printf("  kafka connect %s%n", stack.connect().url());
        System.out.printf("  admin token  %s%n", stack.jwt().mint("local-admin", List.of("admin", "bot", "user"), Duration.ofHours(12)));
        System.out.println("Ctrl-C stops everything and deletes its data.");
        stopped.await();
    }
}
