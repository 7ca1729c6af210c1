enum BankError: Error, Equatable {
    case invalidAmount(Int)
    case insufficientFunds(accountID: String, balanceCents: Int, requestedCents: Int)
    case sameAccount
}

/// An external payment network. `send` suspends (it talks to another system) and may throw.
protocol PaymentGateway: Sendable {
    func send(cents: Int, from accountID: String) async throws
}
