actor BankAccount {
    nonisolated let id: String
    private(set) var balanceCents: Int
    private(set) var transactionCount = 0

    init(id: String, balanceCents: Int = 0) {
        self.id = id
        self.balanceCents = balanceCents
    }

    func deposit(_ cents: Int) throws {
        guard cents >= 0 else { throw BankError.invalidAmount(cents) }
        balanceCents += cents
        transactionCount += 1
    }

    func withdraw(_ cents: Int) throws {
        guard cents > 0 else { throw BankError.invalidAmount(cents) }
        guard cents <= balanceCents else {
            throw BankError.insufficientFunds(accountID: id, balanceCents: balanceCents, requestedCents: cents)
        }
        balanceCents -= cents
        transactionCount += 1
    }

    func transfer(_ cents: Int, to other: BankAccount) async throws {
        guard cents > 0 else { throw BankError.invalidAmount(cents) }
        guard other !== self else { throw BankError.sameAccount }
        try withdraw(cents)            // synchronous: no suspension between check and debit
        try await other.deposit(cents)
    }

    func payOut(_ cents: Int, via gateway: any PaymentGateway) async throws {
        try withdraw(cents)            // take the money out before suspending
        do {
            try await gateway.send(cents: cents, from: id)
        } catch {
            balanceCents += cents
            transactionCount -= 1
            throw error
        }
    }
}
