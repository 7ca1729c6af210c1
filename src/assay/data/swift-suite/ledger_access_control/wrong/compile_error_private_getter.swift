final class Ledger {
    private var balanceCents: Int = 0
    private(set) var entries: [LedgerEntry] = []
    let overdraftLimitCents: Int

    init(overdraftLimitCents: Int = 0) {
        self.overdraftLimitCents = max(0, overdraftLimitCents)
    }

    func deposit(_ cents: Int, memo: String) throws {
        guard cents > 0 else { throw LedgerError.nonPositiveAmount(cents) }
        balanceCents += cents
        entries.append(LedgerEntry(amountCents: cents, memo: memo))
    }

    func withdraw(_ cents: Int, memo: String) throws {
        guard cents > 0 else { throw LedgerError.nonPositiveAmount(cents) }
        guard balanceCents - cents >= -overdraftLimitCents else {
            throw LedgerError.insufficientFunds(balanceCents: balanceCents, requestedCents: cents)
        }
        balanceCents -= cents
        entries.append(LedgerEntry(amountCents: -cents, memo: memo))
    }
}
