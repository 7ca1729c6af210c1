final class OrderStateMachine {
    var state: OrderState = .created
    var history: [OrderState] = [.created]
    private let totalCents: Int
    private var observers: [(OrderState, OrderState) -> Void] = []

    init(totalCents: Int) {
        self.totalCents = totalCents
    }

    var isTerminal: Bool {
        switch state {
        case .delivered, .cancelled: return true
        case .created, .paid, .shipped: return false
        }
    }

    private func next(after event: OrderEvent) -> OrderState? {
        switch (state, event) {
        case (.created, .pay(let amount)) where amount == totalCents:
            return .paid(amountCents: amount)
        case (.created, .cancel(let reason)), (.paid, .cancel(let reason)):
            return .cancelled(reason: reason)
        case (.paid, .ship(let tracking)) where !tracking.isEmpty:
            return .shipped(trackingNumber: tracking)
        case (.shipped, .deliver):
            return .delivered
        default:
            return nil
        }
    }

    func handle(_ event: OrderEvent) throws {
        guard let newState = next(after: event) else {
            throw InvalidTransition(state: state, event: event)
        }
        let old = state
        state = newState
        history.append(newState)
        for observer in observers {
            observer(old, newState)
        }
    }

    func onTransition(_ observer: @escaping (_ from: OrderState, _ to: OrderState) -> Void) {
        observers.append(observer)
    }
}
