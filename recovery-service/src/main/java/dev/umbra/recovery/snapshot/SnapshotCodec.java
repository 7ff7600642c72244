package dev.umbra.recovery.snapshot;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A structure as stored: canonical JSON (record components in declaration order, lists in the order
 * given, no whitespace), so that one structure always has one checksum, the SHA-256 of those bytes.
 */
public final class SnapshotCodec {

    public record Encoded(String json, String checksum, int sizeBytes) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private SnapshotCodec() {
    }

    public static Encoded encode(GuildStructure structure) {
        try {
            String json = JSON.writeValueAsString(structure);
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            return new Encoded(json, HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)), bytes.length);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    public static GuildStructure decode(String json) {
        try {
            return JSON.readValue(json, GuildStructure.class);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
