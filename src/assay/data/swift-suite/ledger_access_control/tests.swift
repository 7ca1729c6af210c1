// Overload resolution on the static key-path type tells whether a setter is visible in this file.
private func tSettable<Root, Value>(_ keyPath: ReferenceWritableKeyPath<Root, Value>) -> Bool { true }
private func tSettable<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> Bool { false }

// Readable from another file: Ledger satisfies a get-only protocol here.
private protocol TReadableLedger {
    var balanceCents: Int { get }
    var entries: [LedgerEntry] { get }
}
extension Ledger: TReadableLedger {}

func test_setters_are_not_visible_outside() throws {
    try expect(!tSettable(\Ledger.balanceCents), "balanceCents must have a private setter")
    try expect(!tSettable(\Ledger.entries), "entries must have a private setter")
    let readable: any TReadableLedger = Ledger()
    try expectEqual(readable.balanceCents, 0)
    try expectEqual(readable.entries, [])
}

func test_deposits_and_withdrawals() throws {
    let ledger = Ledger()
    try ledger.deposit(10_000, memo: "salary")
    try ledger.withdraw(2_550, memo: "groceries")
    try expectEqual(ledger.balanceCents, 7_450)
    try expectEqual(ledger.entries, [LedgerEntry(amountCents: 10_000, memo: "salary"),
                                     LedgerEntry(amountCents: -2_550, memo: "groceries")])
    try expectThrows(try ledger.deposit(0, memo: "nothing"), LedgerError.nonPositiveAmount(0))
    try expectThrows(try ledger.withdraw(-5, memo: "negative"), LedgerError.nonPositiveAmount(-5))
    try expectEqual(ledger.entries.count, 2)
}

func test_overdraft_limit_is_inclusive() throws {
    let ledger = Ledger(overdraftLimitCents: 500)
    try ledger.deposit(100, memo: "a")
    try expectThrows(try ledger.withdraw(601, memo: "too much"),
                     LedgerError.insufficientFunds(balanceCents: 100, requestedCents: 601))
    try ledger.withdraw(600, memo: "to the limit")
    try expectEqual(ledger.balanceCents, -500)
    try expectThrows(try ledger.withdraw(1, memo: "one more"),
                     LedgerError.insufficientFunds(balanceCents: -500, requestedCents: 1))
    try expectEqual(ledger.entries.map(\.amountCents), [100, -600])
    let strict = Ledger(overdraftLimitCents: -10)
    try expectEqual(strict.overdraftLimitCents, 0)
    try expectThrows(try strict.withdraw(1, memo: "x"), LedgerError.insufficientFunds(balanceCents: 0, requestedCents: 1))
    try expectEqual(strict.entries, [])
}

func test_entries_are_a_value_copy() throws {
    let ledger = Ledger()
    try ledger.deposit(1, memo: "first")
    var snapshot = ledger.entries
    try ledger.deposit(2, memo: "second")
    try expectEqual(snapshot.count, 1)
    snapshot.removeAll()
    try expectEqual(ledger.entries.count, 2)
}
