package dev.umbra.billing.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class LedgerTest {

    private static final UUID SUBSCRIPTION = UUID.randomUUID();

    /**
     * The worked example of a retroactive correction: a payment of 3,000,000 made on 26 August at
     * 09:04:07 reaches the books the next morning (recorded 27 August 06:30:20); on 2 September at
     * 14:46:17 it turns out it was 4,000,000. The correction reverses the wrong entry and books the right
     * amount, both dated 26 August, recorded 2 September.
     */
    @Test
    void whatWeKnewThenAndWhatWeKnowNowAfterARetroactiveCorrection() {
        Instant paid = Instant.parse("2010-08-26T09:04:07Z");
        Instant notified = Instant.parse("2010-08-27T06:30:20Z");
        Instant found = Instant.parse("2010-09-02T14:46:17Z");
        LedgerEntry deposit = entry(EntryKind.CHARGE, 3_000_000, paid, notified);
        Ledger before = new Ledger(SUBSCRIPTION, List.of(deposit));

        Ledger.Correction correction = before.correct(deposit.id(), 4_000_000, "the gateway charged 4,000,000", UUID.randomUUID(), found);
        Ledger after = new Ledger(SUBSCRIPTION, List.of(deposit, correction.reversal(), correction.adjustment()));

        assertThat(correction.reversal().kind()).isEqualTo(EntryKind.REVERSAL);
        assertThat(correction.reversal().amount()).isEqualTo(-3_000_000);
        assertThat(correction.reversal().reverses()).isEqualTo(deposit.id());
        assertThat(correction.adjustment().amount()).isEqualTo(4_000_000);
        assertThat(List.of(correction.reversal(), correction.adjustment())).allSatisfy(e -> {
            assertThat(e.occurredAt()).isEqualTo(paid);
            assertThat(e.recordedAt()).isEqualTo(found);
        });

        Instant endOf26th = Instant.parse("2010-08-26T23:59:59Z");
        // on the 26th itself nothing was known yet
        assertThat(after.balance(endOf26th, endOf26th)).isZero();
        // the balance of the 26th as known on the 27th, and as known on 3 September
        assertThat(after.balance(endOf26th, Instant.parse("2010-08-27T23:59:59Z"))).isEqualTo(3_000_000);
        assertThat(after.balance(endOf26th, Instant.parse("2010-09-03T00:00:00Z"))).isEqualTo(4_000_000);
        // before the payment happened, whatever we know now
        assertThat(after.balance(Instant.parse("2010-08-25T00:00:00Z"), found)).isZero();
        // the history stays: the wrong entry is still there, cancelled, not changed
        assertThat(after.entries(found, found)).extracting(LedgerEntry::kind)
                .containsExactly(EntryKind.CHARGE, EntryKind.REVERSAL, EntryKind.ADJUSTMENT);
        assertThat(after.entries(found, found).get(0)).isEqualTo(deposit);
    }

    @Test
    void anEntryIsCorrectedOnceAReversalNeverAndNotToTheAmountItHas() {
        LedgerEntry charge = entry(EntryKind.CHARGE, 9_900, Instant.parse("2026-03-03T00:00:00Z"), Instant.parse("2026-03-03T00:00:00Z"));
        Instant at = Instant.parse("2026-03-10T00:00:00Z");
        Ledger.Correction correction = new Ledger(SUBSCRIPTION, List.of(charge)).correct(charge.id(), 19_900, "wrong", UUID.randomUUID(), at);
        Ledger corrected = new Ledger(SUBSCRIPTION, List.of(charge, correction.reversal(), correction.adjustment()));

        assertThatThrownBy(() -> corrected.correct(charge.id(), 29_900, "again", UUID.randomUUID(), at))
                .isInstanceOf(CorrectionRejectedException.class).hasMessageContaining("corrected already");
        assertThatThrownBy(() -> corrected.correct(correction.reversal().id(), 0, "no", UUID.randomUUID(), at))
                .isInstanceOf(CorrectionRejectedException.class).hasMessageContaining("reversal");
        assertThatThrownBy(() -> corrected.correct(correction.adjustment().id(), 19_900, "same", UUID.randomUUID(), at))
                .isInstanceOf(CorrectionRejectedException.class).hasMessageContaining("already has");
        assertThatThrownBy(() -> corrected.correct(UUID.randomUUID(), 1, "unknown", UUID.randomUUID(), at))
                .isInstanceOf(CorrectionRejectedException.class).hasMessageContaining("no ledger entry");
        // the adjustment itself can be corrected: a second reversal, a new adjustment
        Ledger.Correction second = corrected.correct(correction.adjustment().id(), 14_900, "still wrong", UUID.randomUUID(), at.plusSeconds(60));
        assertThat(new Ledger(SUBSCRIPTION, List.of(charge, correction.reversal(), correction.adjustment(), second.reversal(), second.adjustment()))
                .balance(at.plusSeconds(60), at.plusSeconds(60))).isEqualTo(14_900);
    }

    @Test
    void theBalanceIsChargesMinusRefundsPlusOrMinusCorrectionsAfterARandomSequence() {
        Random random = new Random(8);
        for (int run = 0; run < 100; run++) {
            List<LedgerEntry> entries = new ArrayList<>();
            long charges = 0;
            long refunds = 0;
            long corrections = 0;
            Instant now = Instant.parse("2026-01-01T00:00:00Z");
            for (int step = 0; step < 30; step++) {
                now = now.plusSeconds(1 + random.nextInt(86_400));
                int operation = random.nextInt(3);
                if (operation == 0 || entries.isEmpty()) {
                    long amount = 1 + random.nextInt(20_000);
                    entries.add(entry(EntryKind.CHARGE, amount, now.minusSeconds(random.nextInt(3_600)), now));
                    charges += amount;
                } else if (operation == 1 && charges - refunds > 0) {
                    long amount = 1 + random.nextInt((int) Math.min(Integer.MAX_VALUE - 1, charges - refunds));
                    entries.add(entry(EntryKind.REFUND, -amount, now, now));
                    refunds += amount;
                } else {
                    Ledger ledger = new Ledger(SUBSCRIPTION, entries);
                    List<LedgerEntry> correctable = ledger.entries().stream().filter(e -> e.kind() != EntryKind.REVERSAL)
                            .filter(e -> ledger.entries().stream().noneMatch(r -> e.id().equals(r.reverses()))).toList();
                    LedgerEntry wrong = correctable.get(random.nextInt(correctable.size()));
                    long right = wrong.amount() + 1 + random.nextInt(5_000) * (random.nextBoolean() ? 1 : -1);
                    if (right == wrong.amount()) {
                        continue;
                    }
                    Ledger.Correction correction = ledger.correct(wrong.id(), right, "random", UUID.randomUUID(), now);
                    entries.add(correction.reversal());
                    entries.add(correction.adjustment());
                    corrections += right - wrong.amount();
                }
            }
            Ledger ledger = new Ledger(SUBSCRIPTION, entries);
            assertThat(ledger.balance(now, now)).isEqualTo(charges - refunds + corrections);
        }
    }

    @Test
    void aChargeAddsARefundSubtractsAndOnlyAReversalNamesAnEntry() {
        Instant at = Instant.parse("2026-01-01T00:00:00Z");
        assertThatThrownBy(() -> entry(EntryKind.CHARGE, -1, at, at)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> entry(EntryKind.REFUND, 1, at, at)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LedgerEntry(UUID.randomUUID(), SUBSCRIPTION, EntryKind.REVERSAL, -1, "KRW", UUID.randomUUID(), null, null,
                "r", at, at, at)).isInstanceOf(IllegalArgumentException.class);
    }

    private static LedgerEntry entry(EntryKind kind, long amount, Instant occurredAt, Instant recordedAt) {
        return new LedgerEntry(UUID.randomUUID(), SUBSCRIPTION, kind, amount, "KRW", UUID.randomUUID(), null, null, kind + " " + amount,
                occurredAt, recordedAt, recordedAt);
    }
}
