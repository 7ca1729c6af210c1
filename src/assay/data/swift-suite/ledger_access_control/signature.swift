/// An account ledger; balance and entries are readable everywhere but only changed by its methods.
final class Ledger {
    /// The current balance; readable outside, settable only inside the class.
    private(set) var balanceCents: Int = 0
    /// All successful operations, oldest first; readable outside, settable only inside the class.
    private(set) var entries: [LedgerEntry] = []
    /// How far below zero the balance may go (never negative).
    let overdraftLimitCents: Int

    init(overdraftLimitCents: Int = 0) {
        fatalError("TODO")
    }

    /// Adds a positive amount; throws `LedgerError.nonPositiveAmount` otherwise.
    func deposit(_ cents: Int, memo: String) throws {
        fatalError("TODO")
    }

    /// Subtracts a positive amount if the balance stays >= -overdraftLimitCents; otherwise throws.
    func withdraw(_ cents: Int, memo: String) throws {
        fatalError("TODO")
    }
}
