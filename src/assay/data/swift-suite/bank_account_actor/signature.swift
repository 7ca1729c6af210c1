/// A bank account whose state is protected by actor isolation.
actor BankAccount {
    nonisolated let id: String
    /// The current balance in cents; never negative.
    private(set) var balanceCents: Int
    /// The number of successful deposits, withdrawals and payouts (a transfer counts on each account).
    private(set) var transactionCount = 0

    init(id: String, balanceCents: Int = 0) {
        fatalError("TODO")
    }

    func deposit(_ cents: Int) throws {
        fatalError("TODO")
    }

    func withdraw(_ cents: Int) throws {
        fatalError("TODO")
    }

    /// Moves `cents` to `other`; never overdraws, even with concurrent transfers.
    func transfer(_ cents: Int, to other: BankAccount) async throws {
        fatalError("TODO")
    }

    /// Sends `cents` through `gateway`; never overdraws, even with concurrent payouts; refunds on failure.
    func payOut(_ cents: Int, via gateway: any PaymentGateway) async throws {
        fatalError("TODO")
    }
}
