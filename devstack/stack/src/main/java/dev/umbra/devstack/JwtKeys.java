package dev.umbra.devstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * A signing key made at start-up (none is kept in the repository): services verify tokens with the
 * public key file, tests and the local run mint tokens with {@link #mint}.
 */
public final class JwtKeys {

    public static final String ISSUER = "https://umbra.dev/devstack";
    /** The {@code aud} every Umbra service expects: a token minted for another audience is refused. */
    public static final String AUDIENCE = "umbra-api";
    /** The claim of a person's token that names their Discord account (the services read it as SignedInUser does). */
    public static final String DISCORD_USER_ID = "discord_user_id";
    /**
     * The longest lifetime a service accepts ({@code smallrye.jwt.time-to-live}). A bot token can
     * open a session for any user, so none may live long; the bot fetches a fresh one instead.
     */
    public static final Duration MAX_LIFETIME = Duration.ofHours(1);

    private final KeyPair keyPair;
    private final Path publicKeyFile;

    JwtKeys(KeyPair keyPair, Path publicKeyFile) {
        this.keyPair = keyPair;
        this.publicKeyFile = publicKeyFile;
    }

    static JwtKeys generate(Path workDir) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            KeyPair keyPair = generator.generateKeyPair();
            Path publicKeyFile = workDir.resolve("jwt-public.pem");
            Files.writeString(publicKeyFile, "-----BEGIN PUBLIC KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(keyPair.getPublic().getEncoded())
                    + "\n-----END PUBLIC KEY-----\n");
            return new JwtKeys(keyPair, publicKeyFile);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    KeyPair keyPair() {
        return keyPair;
    }

    public Path publicKeyFile() {
        return publicKeyFile;
    }

    /** An RS256 token for {@code subject} with the given roles (the {@code groups} claim), valid for {@code ttl}. */
    public String mint(String subject, List<String> roles, Duration ttl) {
        return mint(subject, roles, Map.of(), ttl);
    }

    /** {@link #mint(String, List, Duration)} with more string claims (a person's {@code discord_user_id}). */
    public String mint(String subject, List<String> roles, Map<String, String> claims, Duration ttl) {
        Instant now = Instant.now();
        return mint(subject, roles, claims, AUDIENCE, now, now.plus(ttl));
    }

    /** A token with every time and the audience chosen (null: no {@code aud} claim), to test how services refuse bad ones. */
    public String mint(String subject, List<String> roles, String audience, Instant issuedAt, Instant expiresAt) {
        return mint(subject, roles, Map.of(), audience, issuedAt, expiresAt);
    }

    private String mint(String subject, List<String> roles, Map<String, String> more, String audience, Instant issuedAt, Instant expiresAt) {
        String header = "{\"alg\":\"RS256\",\"typ\":\"JWT\"}";
        String claims = "{\"iss\":\"" + ISSUER + "\",\"sub\":\"" + subject + "\",\"upn\":\"" + subject + "\""
                + (audience == null ? "" : ",\"aud\":\"" + audience + "\"")
                + more.entrySet().stream().map(claim -> ",\"" + claim.getKey() + "\":\"" + claim.getValue() + "\"").collect(Collectors.joining())
                + ",\"groups\":[" + roles.stream().map(r -> "\"" + r + "\"").collect(Collectors.joining(",")) + "]"
                + ",\"iat\":" + issuedAt.getEpochSecond() + ",\"exp\":" + expiresAt.getEpochSecond()
                + ",\"jti\":\"" + UUID.randomUUID() + "\"}";
        String signingInput = base64Url(header) + "." + base64Url(claims);
        try {
            Signature signature = Signature.getInstance("SHA256withRSA");
            signature.initSign(keyPair.getPrivate());
            signature.update(signingInput.getBytes(StandardCharsets.US_ASCII));
            return signingInput + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(signature.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String base64Url(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }
}
