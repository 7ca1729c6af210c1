func test_closures_share_one_counter() throws {
    let c = makeCounter(start: 10, step: 5)
    try expectEqual(c.current(), 10)
    try expectEqual(c.increment(), 15)
    try expectEqual(c.increment(), 20)
    try expectEqual(c.current(), 20)
    let copy = c
    try expectEqual(copy.increment(), 25)
    try expectEqual(c.current(), 25)
}

func test_reset_returns_to_start() throws {
    let c = makeCounter(start: -3, step: 2)
    _ = c.increment()
    _ = c.increment()
    c.reset()
    try expectEqual(c.current(), -3)
    try expectEqual(c.increment(), -1)
}

func test_counters_are_independent() throws {
    let a = makeCounter(start: 0, step: 1)
    let b = makeCounter(start: 0, step: 1)
    _ = a.increment()
    _ = a.increment()
    try expectEqual(a.current(), 2)
    try expectEqual(b.current(), 0)
}

func test_snapshot_captures_the_value() throws {
    let c = makeCounter(start: 1, step: 1)
    let first = c.snapshot()
    _ = c.increment()
    let second = c.snapshot()
    _ = c.increment()
    c.reset()
    _ = c.increment()
    try expectEqual(first(), 1)
    try expectEqual(second(), 2)
    try expectEqual(c.current(), 2)
}
