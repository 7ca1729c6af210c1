func test_notifies_active_observers_in_order() throws {
    let temperature = Observable(20)
    var log: [String] = []
    let a = temperature.observe { log.append("a\($0)") }
    let b = temperature.observe { log.append("b\($0)") }
    try expectEqual(log, [])
    try expectEqual(temperature.observerCount, 2)
    temperature.value = 21
    temperature.value = 21
    try expectEqual(temperature.value, 21)
    try expectEqual(log, ["a21", "b21", "a21", "b21"])
    withExtendedLifetime((a, b)) {}
}

func test_cancel_and_deallocation_end_observations() throws {
    let name = Observable("x")
    var calls = 0
    let kept = name.observe { _ in calls += 1 }
    var dropped: ObservationToken? = name.observe { _ in calls += 100 }
    _ = name.observe { _ in calls += 10_000 }
    try expectEqual(name.observerCount, 2)
    dropped = nil
    try expectEqual(name.observerCount, 1)
    name.value = "y"
    try expectEqual(calls, 1)
    kept.cancel()
    kept.cancel()
    try expectEqual(name.observerCount, 0)
    name.value = "z"
    try expectEqual(calls, 1)
    try expectNil(dropped)
}

func test_tokens_do_not_keep_the_observable_alive() throws {
    weak var weakObservable: Observable<Int>?
    var token: ObservationToken?
    do {
        let counter = Observable(0)
        weakObservable = counter
        token = counter.observe { _ in }
    }
    try expectNil(weakObservable, "a token must not retain its observable")
    token?.cancel()
    token = nil
}

func test_cancelling_during_notification() throws {
    let signal = Observable(0)
    var log: [String] = []
    var second: ObservationToken?
    var first: ObservationToken?
    first = signal.observe { value in
        log.append("first \(value)")
        second?.cancel()      // cancels the next observer before it is called
        first?.cancel()       // and itself
    }
    second = signal.observe { value in log.append("second \(value)") }
    let third = signal.observe { value in log.append("third \(value)") }
    signal.value = 1
    signal.value = 2
    try expectEqual(log, ["first 1", "third 1", "third 2"])
    try expectEqual(signal.observerCount, 1)
    withExtendedLifetime(third) {}
}
