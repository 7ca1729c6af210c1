struct LedgerEntry: Equatable {
    /// Positive for deposits, negative for withdrawals.
    let amountCents: Int
    let memo: String
}

enum LedgerError: Error, Equatable {
    case nonPositiveAmount(Int)
    case insufficientFunds(balanceCents: Int, requestedCents: Int)
}
