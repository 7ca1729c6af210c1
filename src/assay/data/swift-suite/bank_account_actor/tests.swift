private struct TGatewayDown: Error, Equatable {}

/// Takes a few milliseconds per payment, like a network call; refuses 13-cent payments.
private actor TSlowGateway: PaymentGateway {
    var sent: [Int] = []
    func send(cents: Int, from accountID: String) async throws {
        try await Task.sleep(nanoseconds: 5_000_000)
        if cents == 13 { throw TGatewayDown() }
        sent.append(cents)
    }
}

func test_deposit_withdraw_and_errors() async throws {
    let account = BankAccount(id: "acc-1", balanceCents: 500)
    try await account.deposit(250)
    try await account.withdraw(700)
    var balance = await account.balanceCents
    try expectEqual(balance, 50)
    try await expectThrowsAsync(BankError.insufficientFunds(accountID: "acc-1", balanceCents: 50, requestedCents: 51)) {
        try await account.withdraw(51)
    }
    try await expectThrowsAsync(BankError.invalidAmount(0)) { try await account.deposit(0) }
    try await expectThrowsAsync(BankError.invalidAmount(-5)) { try await account.withdraw(-5) }
    balance = await account.balanceCents
    let count = await account.transactionCount
    try expectEqual(balance, 50)
    try expectEqual(count, 2)
    try expectEqual(account.id, "acc-1")
}

func test_concurrent_deposits_are_all_counted() async throws {
    let account = BankAccount(id: "pool")
    try await withThrowingTaskGroup(of: Void.self) { group in
        for i in 1...1_000 {
            group.addTask { try await account.deposit(i % 7 + 1) }
        }
        try await group.waitForAll()
    }
    let expected = (1...1_000).reduce(0) { $0 + $1 % 7 + 1 }
    let balance = await account.balanceCents
    let count = await account.transactionCount
    try expectEqual(balance, expected)
    try expectEqual(count, 1_000)
}

func test_concurrent_transfers_never_overdraw() async throws {
    let source = BankAccount(id: "src", balanceCents: 100)
    let target = BankAccount(id: "dst")
    let successes = await withTaskGroup(of: Bool.self) { group -> Int in
        for _ in 0..<50 {
            group.addTask {
                do {
                    try await source.transfer(10, to: target)
                    return true
                } catch {
                    return false
                }
            }
        }
        var ok = 0
        for await success in group where success { ok += 1 }
        return ok
    }
    let sourceBalance = await source.balanceCents
    let targetBalance = await target.balanceCents
    try expectEqual(successes, 10)
    try expectEqual(sourceBalance, 0)
    try expectEqual(targetBalance, 100)
}

func test_transfer_rules() async throws {
    let a = BankAccount(id: "a", balanceCents: 30)
    let b = BankAccount(id: "b", balanceCents: 5)
    try await a.transfer(20, to: b)
    try await expectThrowsAsync(BankError.insufficientFunds(accountID: "a", balanceCents: 10, requestedCents: 11)) {
        try await a.transfer(11, to: b)
    }
    try await expectThrowsAsync(BankError.sameAccount) { try await a.transfer(1, to: a) }
    try await expectThrowsAsync(BankError.invalidAmount(0)) { try await a.transfer(0, to: b) }
    let aBalance = await a.balanceCents
    let bBalance = await b.balanceCents
    let aCount = await a.transactionCount
    let bCount = await b.transactionCount
    try expectEqual(aBalance, 10)
    try expectEqual(bBalance, 25)
    try expectEqual(aCount, 1)
    try expectEqual(bCount, 1)
}

func test_concurrent_payouts_and_refunds() async throws {
    let account = BankAccount(id: "payroll", balanceCents: 100)
    let gateway = TSlowGateway()
    let successes = await withTaskGroup(of: Bool.self) { group -> Int in
        for _ in 0..<50 {
            group.addTask { (try? await account.payOut(10, via: gateway)) != nil }
        }
        var ok = 0
        for await success in group where success { ok += 1 }
        return ok
    }
    var balance = await account.balanceCents
    let sent = await gateway.sent
    try expectEqual(successes, 10)
    try expectEqual(balance, 0)
    try expectEqual(sent.reduce(0, +), 100)

    try await account.deposit(20)
    try await expectThrowsAsync(TGatewayDown()) { try await account.payOut(13, via: gateway) }
    balance = await account.balanceCents
    let count = await account.transactionCount
    try expectEqual(balance, 20)
    try expectEqual(count, 11)
    try await expectThrowsAsync(BankError.insufficientFunds(accountID: "payroll", balanceCents: 20, requestedCents: 21)) {
        try await account.payOut(21, via: gateway)
    }
}
