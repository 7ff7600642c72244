package dev.umbra.billing.billingkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class BillingKeyCipherTest {

    static final SecureRandom RANDOM = new SecureRandom();
    static final GatewayBillingKey KEY = new GatewayBillingKey("bln_a7Fq2Xc9TzPmW3kLr8sV");
    static final UUID ROW = UUID.randomUUID();

    /** Generated per run, like devstack does: no key material in the repository. */
    static byte[] newKey() {
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        return key;
    }

    final byte[] v1 = newKey();
    final BillingKeyCipher cipher = new BillingKeyCipher(1, Map.of(1, v1));

    @Test
    void decryptsWhatItEncrypted() {
        String stored = cipher.encrypt(KEY, ROW);
        assertThat(stored).startsWith("v1:").doesNotContain(KEY.value());
        assertThat(cipher.decrypt(stored, ROW)).isEqualTo(KEY);
    }

    @Test
    void twoEncryptionsOfOneValueDiffer() {
        assertThat(cipher.encrypt(KEY, ROW)).isNotEqualTo(cipher.encrypt(KEY, ROW));
    }

    @Test
    void rejectsATamperedCiphertextWhicheverByteChanged() {
        String stored = cipher.encrypt(KEY, ROW);
        byte[] bytes = Base64.getUrlDecoder().decode(stored.substring(3));
        for (int i = 0; i < bytes.length; i++) {
            byte[] tampered = bytes.clone();
            tampered[i] ^= 0x01;
            String forged = "v1:" + Base64.getUrlEncoder().withoutPadding().encodeToString(tampered);
            assertThatThrownBy(() -> cipher.decrypt(forged, ROW)).isInstanceOf(BillingKeyDecryptionException.class);
        }
        assertThatThrownBy(() -> cipher.decrypt(stored.substring(0, stored.length() - 4), ROW))
                .isInstanceOf(BillingKeyDecryptionException.class);
    }

    @Test
    void aCiphertextMovedToAnotherRowDoesNotDecrypt() {
        String stored = cipher.encrypt(KEY, ROW);
        assertThatThrownBy(() -> cipher.decrypt(stored, UUID.randomUUID())).isInstanceOf(BillingKeyDecryptionException.class);
    }

    @Test
    void rejectsWhatIsNotAStoredValue() {
        for (String junk : new String[] {"", "v1", "x1:abc", "v:abc", "vx:abc", "v1:!!!", "v1:AAAA", null}) {
            assertThatThrownBy(() -> cipher.decrypt(junk, ROW)).as(String.valueOf(junk)).isInstanceOf(BillingKeyDecryptionException.class);
        }
    }

    @Test
    void rotatesToANewKeyWhileTheOldOneStillDecrypts() {
        String old = cipher.encrypt(KEY, ROW);
        BillingKeyCipher rotated = new BillingKeyCipher(2, Map.of(1, v1, 2, newKey()));
        assertThat(rotated.decrypt(old, ROW)).isEqualTo(KEY);
        assertThat(rotated.needsRotation(old)).isTrue();

        String fresh = rotated.rotate(old, ROW);
        assertThat(fresh).startsWith("v2:");
        assertThat(rotated.needsRotation(fresh)).isFalse();
        assertThat(rotated.decrypt(fresh, ROW)).isEqualTo(KEY);
        // once v1 is retired, only re-encrypted values can be read
        BillingKeyCipher retired = new BillingKeyCipher(2, Map.of(2, newKey()));
        assertThatThrownBy(() -> retired.decrypt(old, ROW)).isInstanceOf(BillingKeyDecryptionException.class)
                .hasMessageContaining("version 1");
    }

    @Test
    void aKeyIsExactly256BitsAndTheCurrentVersionMustHaveOne() {
        assertThatThrownBy(() -> new BillingKeyCipher(1, Map.of(1, new byte[16]))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BillingKeyCipher(2, Map.of(1, newKey()))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BillingKeyCipher.fromBase64(1, Map.of(1, "not base64!"))).isInstanceOf(IllegalArgumentException.class);
        String base64 = Base64.getEncoder().encodeToString(v1);
        assertThat(BillingKeyCipher.fromBase64(1, Map.of(1, base64)).decrypt(cipher.encrypt(KEY, ROW), ROW)).isEqualTo(KEY);
    }

    @Test
    void noPlaintextOrKeyMaterialInToString() {
        assertThat(KEY.toString()).doesNotContain(KEY.value());
        assertThat(cipher.toString()).doesNotContain(Base64.getEncoder().encodeToString(v1)).contains("v1");
        assertThat(cipher.decrypt(cipher.encrypt(KEY, ROW), ROW).toString()).doesNotContain(KEY.value());
        assertThatThrownBy(() -> new GatewayBillingKey(" ")).isInstanceOf(IllegalArgumentException.class);
    }
}
