package dev.umbra.billing.billingkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MaskedCardTest {

    @Test
    void keepsOnlyTheBrandAndTheLastFourDigits() {
        MaskedCard card = MaskedCard.of(" VISA ", "4111 1111 1111 1234");
        assertThat(card).isEqualTo(new MaskedCard("VISA", "1234"));
        assertThat(card.display()).isEqualTo("VISA •••• 1234");
        assertThat(card.toString()).doesNotContain("4111");
    }

    @Test
    void acceptsTheGatewaysPartlyMaskedNumber() {
        assertThat(MaskedCard.of("신한", "4330-12**-****-123*").last4()).isEqualTo("123*");
        assertThat(MaskedCard.of("BC", "43301234****5678").last4()).isEqualTo("5678");
    }

    @Test
    void rejectsWhatIsNotACardNumber() {
        assertThatThrownBy(() -> MaskedCard.of("VISA", "123")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MaskedCard.of("VISA", "4111abcd1234")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MaskedCard.of(" ", "4111111111111234")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MaskedCard("VISA", "12345")).isInstanceOf(IllegalArgumentException.class);
    }
}
