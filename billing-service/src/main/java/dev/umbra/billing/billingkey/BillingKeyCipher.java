package dev.umbra.billing.billingkey;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-256-GCM for billing keys at rest. The stored form is {@code v<version>:<base64url(iv ‖ ciphertext ‖ tag)>}:
 * the version names the encryption key, so keys rotate by adding a new version, making it current and
 * re-encrypting old values ({@link #needsRotation}, {@link #rotate}) while the old key still decrypts.
 * Every value gets a fresh random 96-bit IV. The row's billing key id is authenticated with it (AAD), so
 * a ciphertext copied onto another row does not decrypt.
 */
public final class BillingKeyCipher {

    private static final String TRANSFORMATION = "AES/GCM/NoPadding";
    private static final int KEY_BYTES = 32;
    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;

    private final int currentVersion;
    private final Map<Integer, SecretKey> keys;
    private final SecureRandom random = new SecureRandom();

    /**
     * @param keysByVersion every key still needed to decrypt, each 256 bits; {@code currentVersion} encrypts
     */
    public BillingKeyCipher(int currentVersion, Map<Integer, byte[]> keysByVersion) {
        Map<Integer, SecretKey> copy = new TreeMap<>();
        keysByVersion.forEach((version, key) -> {
            if (version < 1) {
                throw new IllegalArgumentException("key versions start at 1: " + version);
            }
            if (key == null || key.length != KEY_BYTES) {
                throw new IllegalArgumentException("billing key encryption key v" + version + " must be 256 bits");
            }
            copy.put(version, new SecretKeySpec(key.clone(), "AES"));
        });
        if (!copy.containsKey(currentVersion)) {
            throw new IllegalArgumentException("no key for the current version " + currentVersion);
        }
        this.currentVersion = currentVersion;
        this.keys = Map.copyOf(copy);
    }

    /** Keys as configuration holds them: standard Base64 of 32 bytes. */
    public static BillingKeyCipher fromBase64(int currentVersion, Map<Integer, String> base64KeysByVersion) {
        Map<Integer, byte[]> decoded = new TreeMap<>();
        base64KeysByVersion.forEach((version, key) -> {
            try {
                decoded.put(version, Base64.getDecoder().decode(Objects.requireNonNull(key, "key").trim()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("billing key encryption key v" + version + " is not Base64");
            }
        });
        return new BillingKeyCipher(currentVersion, decoded);
    }

    public String encrypt(GatewayBillingKey billingKey, UUID billingKeyId) {
        byte[] iv = new byte[IV_BYTES];
        random.nextBytes(iv);
        try {
            Cipher cipher = cipher(Cipher.ENCRYPT_MODE, currentVersion, iv, billingKeyId);
            byte[] sealed = cipher.doFinal(billingKey.value().getBytes(StandardCharsets.UTF_8));
            byte[] stored = ByteBuffer.allocate(IV_BYTES + sealed.length).put(iv).put(sealed).array();
            return "v" + currentVersion + ":" + Base64.getUrlEncoder().withoutPadding().encodeToString(stored);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is unavailable", e);
        }
    }

    public GatewayBillingKey decrypt(String stored, UUID billingKeyId) {
        int version = versionOf(stored);
        if (!keys.containsKey(version)) {
            throw new BillingKeyDecryptionException("no key for version " + version, null);
        }
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(stored.substring(stored.indexOf(':') + 1));
        } catch (IllegalArgumentException e) {
            throw new BillingKeyDecryptionException("not a stored billing key", null);
        }
        if (bytes.length <= IV_BYTES + TAG_BITS / 8) {
            throw new BillingKeyDecryptionException("not a stored billing key", null);
        }
        try {
            Cipher cipher = cipher(Cipher.DECRYPT_MODE, version, Arrays.copyOf(bytes, IV_BYTES), billingKeyId);
            byte[] plain = cipher.doFinal(bytes, IV_BYTES, bytes.length - IV_BYTES);
            return new GatewayBillingKey(new String(plain, StandardCharsets.UTF_8));
        } catch (AEADBadTagException e) {
            throw new BillingKeyDecryptionException("the stored billing key failed authentication", e);
        } catch (GeneralSecurityException e) {
            throw new BillingKeyDecryptionException("the stored billing key cannot be decrypted", e);
        }
    }

    /** True when {@code stored} was encrypted under an older key than the current one. */
    public boolean needsRotation(String stored) {
        return versionOf(stored) != currentVersion;
    }

    /** {@code stored} re-encrypted under the current key. */
    public String rotate(String stored, UUID billingKeyId) {
        return encrypt(decrypt(stored, billingKeyId), billingKeyId);
    }

    private Cipher cipher(int mode, int version, byte[] iv, UUID billingKeyId) throws GeneralSecurityException {
        Cipher cipher = Cipher.getInstance(TRANSFORMATION);
        cipher.init(mode, keys.get(version), new GCMParameterSpec(TAG_BITS, iv));
        cipher.updateAAD(("umbra-billing-key:" + version + ":" + billingKeyId).getBytes(StandardCharsets.UTF_8));
        return cipher;
    }

    private static int versionOf(String stored) {
        int colon = stored == null ? -1 : stored.indexOf(':');
        if (colon < 2 || stored.charAt(0) != 'v') {
            throw new BillingKeyDecryptionException("not a stored billing key", null);
        }
        try {
            return Integer.parseInt(stored.substring(1, colon));
        } catch (NumberFormatException e) {
            throw new BillingKeyDecryptionException("not a stored billing key", null);
        }
    }

    @Override
    public String toString() {
        return "BillingKeyCipher[current=v" + currentVersion + ", versions=" + new TreeMap<>(keys).keySet() + "]";
    }
}
