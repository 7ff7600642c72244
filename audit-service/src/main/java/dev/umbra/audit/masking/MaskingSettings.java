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
     * session references and ids, tokens, billing keys (not their ids), and anything that looks like a
     * secret, a password, a credential, a key, card data or a signature.
     */
    @WithDefault("session|sessionref|sessionid|.*token.*|billingkey|.*secret.*|.*passw(or)?d.*|.*credential.*|.*apikey.*|"
            + ".*privatekey.*|.*signingkey.*|.*accesskey.*|.*authori[sz]ation.*|.*cookie.*|.*signature.*|.*cardnumber.*|cvc|cvv|pan")
    String fieldNames();

    /** What a masked value is replaced with. */
    @WithDefault("***")
    String replacement();
}
