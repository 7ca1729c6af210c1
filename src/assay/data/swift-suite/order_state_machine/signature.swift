/// The lifecycle of one order: created -> paid -> shipped -> delivered, or cancelled before shipping.
final class OrderStateMachine {
    /// The current state; starts as `.created`.
    private(set) var state: OrderState = .created
    /// Every state entered so far, oldest first, starting with `.created`.
    private(set) var history: [OrderState] = [.created]

    init(totalCents: Int) {
        fatalError("TODO")
    }

    /// True in `.delivered` and `.cancelled`.
    var isTerminal: Bool { fatalError("TODO") }

    /// Applies `event`, or throws `InvalidTransition(state:event:)` and changes nothing.
    func handle(_ event: OrderEvent) throws {
        fatalError("TODO")
    }

    /// Registers an observer called after each successful transition with (old, new) state.
    func onTransition(_ observer: @escaping (_ from: OrderState, _ to: OrderState) -> Void) {
        fatalError("TODO")
    }
}
