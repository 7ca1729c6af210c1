enum OrderState: Equatable {
    case created
    case paid(amountCents: Int)
    case shipped(trackingNumber: String)
    case delivered
    case cancelled(reason: String)
}

enum OrderEvent: Equatable {
    case pay(amountCents: Int)
    case ship(trackingNumber: String)
    case deliver
    case cancel(reason: String)
}

/// Thrown when `event` is not allowed in `state`.
struct InvalidTransition: Error, Equatable {
    let state: OrderState
    let event: OrderEvent
}
