// Overload resolution on the static key-path type tells whether a setter is visible here.
private func tSettable<Root, Value>(_ keyPath: ReferenceWritableKeyPath<Root, Value>) -> Bool { true }
private func tSettable<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> Bool { false }

func test_happy_path_and_history() throws {
    let order = OrderStateMachine(totalCents: 2_500)
    try expectEqual(order.state, .created)
    try expect(!order.isTerminal)
    try order.handle(.pay(amountCents: 2_500))
    try order.handle(.ship(trackingNumber: "1Z999"))
    try expectEqual(order.state, .shipped(trackingNumber: "1Z999"))
    try expect(!order.isTerminal)
    try order.handle(.deliver)
    try expectEqual(order.state, .delivered)
    try expect(order.isTerminal)
    try expectEqual(order.history, [.created, .paid(amountCents: 2_500), .shipped(trackingNumber: "1Z999"), .delivered])
}

func test_invalid_events_throw_and_change_nothing() throws {
    let order = OrderStateMachine(totalCents: 1_000)
    try expectThrows(try order.handle(.pay(amountCents: 999)),
                     InvalidTransition(state: .created, event: .pay(amountCents: 999)))
    try expectThrows(try order.handle(.deliver), InvalidTransition(state: .created, event: .deliver))
    try order.handle(.pay(amountCents: 1_000))
    try expectThrows(try order.handle(.ship(trackingNumber: "")),
                     InvalidTransition(state: .paid(amountCents: 1_000), event: .ship(trackingNumber: "")))
    try expectThrows(try order.handle(.pay(amountCents: 1_000)),
                     InvalidTransition(state: .paid(amountCents: 1_000), event: .pay(amountCents: 1_000)))
    try expectEqual(order.state, .paid(amountCents: 1_000))
    try expectEqual(order.history, [.created, .paid(amountCents: 1_000)])
}

func test_cancellation_rules() throws {
    let early = OrderStateMachine(totalCents: 5)
    try early.handle(.cancel(reason: "changed mind"))
    try expectEqual(early.state, .cancelled(reason: "changed mind"))
    try expect(early.isTerminal)
    try expectThrows(try early.handle(.pay(amountCents: 5)),
                     InvalidTransition(state: .cancelled(reason: "changed mind"), event: .pay(amountCents: 5)))

    let shipped = OrderStateMachine(totalCents: 5)
    try shipped.handle(.pay(amountCents: 5))
    try shipped.handle(.ship(trackingNumber: "T1"))
    try expectThrows(try shipped.handle(.cancel(reason: "too late")),
                     InvalidTransition(state: .shipped(trackingNumber: "T1"), event: .cancel(reason: "too late")))
    try expectEqual(shipped.history.count, 3)
}

func test_observers_see_the_new_state_in_order() throws {
    let order = OrderStateMachine(totalCents: 10)
    var log: [String] = []
    order.onTransition { from, to in log.append("A \(from) -> \(to), now \(order.state)") }
    order.onTransition { _, to in log.append("B \(to)") }
    try order.handle(.pay(amountCents: 10))
    try? order.handle(.deliver)
    try order.handle(.cancel(reason: "x"))
    try expectEqual(log, [
        "A created -> paid(amountCents: 10), now paid(amountCents: 10)",
        "B paid(amountCents: 10)",
        "A paid(amountCents: 10) -> cancelled(reason: \"x\"), now cancelled(reason: \"x\")",
        "B cancelled(reason: \"x\")",
    ])
}

func test_state_is_read_only_outside() throws {
    try expect(!tSettable(\OrderStateMachine.state), "state must be private(set)")
    try expect(!tSettable(\OrderStateMachine.history), "history must be private(set)")
}
