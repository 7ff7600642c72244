package dev.umbra.devstack;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code java -cp devstack.jar dev.umbra.devstack.Sandboxes discord|payment-gateway}: one sandbox as a
 * process of its own, on every interface, for docker-compose (the local run and the tests start them
 * inside devstack instead). Ports and secrets come from the environment:
 * <ul>
 * <li>discord: {@code UMBRA_DISCORD_BOT_TOKEN}, {@code SANDBOX_PORT} (8090);</li>
 * <li>payment-gateway: {@code UMBRA_PAYMENT_GATEWAY_SECRET_KEY}, {@code UMBRA_PAYMENT_GATEWAY_CALLBACK_SECRET},
 * {@code UMBRA_PAYMENT_GATEWAY_CALLBACK_URL} (billing's webhook), {@code SANDBOX_PORT} (8091, the API with its
 * faulty front) and {@code SANDBOX_CONTROL_PORT} (8092, the {@code /sandbox/} controls).</li>
 * </ul>
 */
public final class Sandboxes {

    private Sandboxes() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: Sandboxes discord|payment-gateway");
        }
        AutoCloseable sandbox = start(args[0], System.getenv(), InetAddress.getByAddress(new byte[4]));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                sandbox.close();
            } catch (Exception e) {
                System.err.println("closing the sandbox: " + e);
            }
        }, "sandbox-shutdown"));
        System.out.println(args[0] + " sandbox up");
        new CountDownLatch(1).await();
    }

    static AutoCloseable start(String name, Map<String, String> env, InetAddress address) {
        return switch (name) {
            case "discord" -> DiscordSandbox.start(new InetSocketAddress(address, port(env, "SANDBOX_PORT", 8090)),
                    required(env, "UMBRA_DISCORD_BOT_TOKEN"));
            case "payment-gateway" -> {
                PaymentGatewaySandbox gateway = PaymentGatewaySandbox.start(
                        new InetSocketAddress(address, port(env, "SANDBOX_PORT", 8091)),
                        new InetSocketAddress(address, port(env, "SANDBOX_CONTROL_PORT", 8092)),
                        required(env, "UMBRA_PAYMENT_GATEWAY_SECRET_KEY"), required(env, "UMBRA_PAYMENT_GATEWAY_CALLBACK_SECRET"));
                gateway.callbackUrl(required(env, "UMBRA_PAYMENT_GATEWAY_CALLBACK_URL"));
                yield gateway;
            }
            default -> throw new IllegalArgumentException("no sandbox " + name + "; sandboxes are discord and payment-gateway");
        };
    }

    private static int port(Map<String, String> env, String variable, int standard) {
        return Integer.parseInt(env.getOrDefault(variable, Integer.toString(standard)));
    }

    private static String required(Map<String, String> env, String variable) {
        String value = env.get(variable);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(variable + " is not set");
        }
        return value;
    }
}
