package dev.umbra.devstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The secrets of a docker-compose run, made on its first start into a volume and never into the
 * repository: {@code java -cp devstack.jar dev.umbra.devstack.ComposeSecrets init <folder>} writes, once,
 * <ul>
 * <li>{@code db-password} (PostgreSQL's {@code POSTGRES_PASSWORD_FILE}), the databases' owner's, which the
 * migrations and the connectors log in with;</li>
 * <li>{@code service-roles.sql}, which PostgreSQL's first start runs: each service's own login role, which owns
 * nothing ({@link PostgresServer#serviceRoleName});</li>
 * <li>{@code <service>.properties}, what each service reads beyond its environment
 * ({@code QUARKUS_CONFIG_LOCATIONS}): its role's and its migrations' database passwords and its own secrets;</li>
 * <li>{@code connect.env}, the connectors' {@code UMBRA_<SERVICE>_DB_PASSWORD}, and {@code sandboxes.env},
 * the sandboxes' keys, both sourced by their containers;</li>
 * <li>{@code jwt-public.pem}, the key services verify tokens with, and the private key that
 * {@code ComposeSecrets token <folder> bot|admin} signs a token with (valid for an hour).</li>
 * </ul>
 */
public final class ComposeSecrets {

    static final String DATABASE_USER = "umbra";

    private ComposeSecrets() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length >= 2 && args[0].equals("init")) {
            Path folder = Path.of(args[1]);
            System.out.println(init(folder) ? "secrets written to " + folder : "secrets of " + folder + " kept");
        } else if (args.length == 3 && args[0].equals("token")) {
            System.out.println(token(Path.of(args[1]), args[2]));
        } else {
            throw new IllegalArgumentException("usage: ComposeSecrets init <folder> | token <folder> bot|admin");
        }
    }

    /** Writes the secrets unless the folder has them already (the database was initialised with that password); true if written. */
    static boolean init(Path folder) throws IOException {
        if (Files.exists(folder.resolve("db-password"))) {
            return false;
        }
        Files.createDirectories(folder);
        String databasePassword = random(18);
        Map<String, String> shared = new LinkedHashMap<>();
        shared.put("umbra.discord.bot-token", random(24));
        shared.put("umbra.payment-gateway.secret-key", "test_sk_" + random(16));
        shared.put("umbra.payment-gateway.callback-secret", random(32));
        byte[] encryptionKey = new byte[32];
        new SecureRandom().nextBytes(encryptionKey);
        shared.put("umbra.billing-key.encryption.keys.1", Base64.getEncoder().encodeToString(encryptionKey));

        StringBuilder serviceRoles = new StringBuilder();
        for (UmbraService service : ServiceRegistry.SERVICES) {
            String servicePassword = random(18);
            serviceRoles.append("CREATE ROLE ").append(PostgresServer.serviceRoleName(service.database()))
                    .append(" LOGIN PASSWORD '").append(servicePassword).append("';\n");
            Map<String, String> properties = new LinkedHashMap<>();
            properties.put("quarkus.datasource.password", servicePassword);
            properties.put("quarkus.flyway.password", databasePassword);
            shared.forEach((key, value) -> {
                if (ownedBy(service, key)) {
                    properties.put(key, value);
                }
            });
            Files.writeString(folder.resolve(service.name() + ".properties"), properties.entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue() + "\n").collect(Collectors.joining()));
        }
        Files.writeString(folder.resolve("service-roles.sql"), serviceRoles);
        Files.writeString(folder.resolve("connect.env"), ServiceRegistry.SERVICES.stream().filter(UmbraService::hasOutbox)
                .map(s -> "export UMBRA_" + s.name().toUpperCase(Locale.ROOT) + "_DB_PASSWORD=" + databasePassword + "\n")
                .collect(Collectors.joining()));
        Files.writeString(folder.resolve("sandboxes.env"), List.of("umbra.discord.bot-token", "umbra.payment-gateway.secret-key",
                "umbra.payment-gateway.callback-secret").stream()
                .map(key -> "export " + ServiceProcess.environmentName(key) + "=" + shared.get(key) + "\n").collect(Collectors.joining()));
        JwtKeys keys = JwtKeys.generate(folder);
        Path privateKey = folder.resolve("jwt-private.der");
        Files.write(privateKey, keys.keyPair().getPrivate().getEncoded());
        // only the secrets container (root) signs tokens; the services read the other files
        Files.setPosixFilePermissions(privateKey, PosixFilePermissions.fromString("rw-------"));
        Files.write(folder.resolve("jwt-public.der"), keys.keyPair().getPublic().getEncoded());
        // The database password file is the mark of a complete folder: written last.
        Files.writeString(folder.resolve("db-password"), databasePassword);
        return true;
    }

    /** Which service reads a secret: billing the gateway's and the billing keys', guild and recovery Discord's. */
    static boolean ownedBy(UmbraService service, String key) {
        return switch (service.name()) {
            case "billing" -> key.startsWith("umbra.payment-gateway.") || key.startsWith("umbra.billing-key.");
            case "guild", "recovery" -> key.startsWith("umbra.discord.");
            default -> false;
        };
    }

    /** A token for the bot gateway ({@code bot}) or an administrator ({@code admin}), as the local run prints them. */
    static String token(Path folder, String role) {
        String subject = switch (role) {
            case "bot" -> "discord-bot";
            case "admin" -> "local-admin";
            default -> throw new IllegalArgumentException("role is bot or admin, not " + role);
        };
        try {
            KeyFactory rsa = KeyFactory.getInstance("RSA");
            KeyPair pair = new KeyPair(rsa.generatePublic(new X509EncodedKeySpec(Files.readAllBytes(folder.resolve("jwt-public.der")))),
                    rsa.generatePrivate(new PKCS8EncodedKeySpec(Files.readAllBytes(folder.resolve("jwt-private.der")))));
            return new JwtKeys(pair, folder.resolve("jwt-public.pem")).mint(subject, List.of(role), JwtKeys.MAX_LIFETIME);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String random(int bytes) {
        byte[] value = new byte[bytes];
        new SecureRandom().nextBytes(value);
        return HexFormat.of().formatHex(value);
    }
}
