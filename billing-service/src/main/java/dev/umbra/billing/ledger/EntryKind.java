package dev.umbra.billing.ledger;

/** CHARGE adds what a customer paid, REFUND subtracts what was given back, REVERSAL cancels one entry exactly, ADJUSTMENT books a right amount. */
public enum EntryKind {
    CHARGE, REFUND, REVERSAL, ADJUSTMENT
}
