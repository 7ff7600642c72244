package dev.umbra.audit.masking;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.List;

/** {@code umbra.audit.masking.*}: which payload fields are masked before an event is stored. */
@ConfigMapping(prefix = "umbra.audit.masking")
public interface MaskingSettings {

    /**
     * Regular expressions over field names, matched whole against the name in lower case with
     * everything but letters and digits removed ({@code sessionRef}, {@code session_ref} and
     * {@code SESSION-REF} are all {@code sessionref}), at any depth of the payload. The defaults:
     * session references, ids and keys (not a count of sessions), tokens, billing keys (not their ids) and
     * the gateway's auth keys, and anything that looks like a secret, a password, a credential, a key,
     * a JWT, card data (its number, security code, expiry, track data, PIN) or a signature. Setting it replaces the list:
     * start from this one. Whatever a field is called, a text value that holds a card number, a JWT or a bearer token is
     * masked too ({@link PayloadMasking}).
     */
    @WithDefault("session|.*session(ref|id|key|token|hash).*|.*token.*|.*billingkeys?|.*authkey.*|.*secret.*|.*passw(or)?d.*|pwd|"
            + ".*passphrase.*|.*credential.*|.*apikey.*|.*privatekey.*|.*signingkey.*|.*accesskey.*|.*encryptionkey.*|"
            + ".*authori[sz]ation.*|.*cookie.*|.*signature.*|.*jwt.*|.*bearer.*|.*cardnumber.*|.*cardno.*|.*cardnum.*|ccnum.*|"
            + "ccnumber|card|cardexpir.*|expiry(month|year|date)?|expirationdate|.*track[12].*|pin|pincode|.*cvc.*|.*cvv.*|pan|cardpan")
    String fieldNames();

    /** What a masked value is replaced with. */
    @WithDefault("***")
    String replacement();
}
