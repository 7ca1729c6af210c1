func test_success_keeps_order_and_trims() throws {
    let r = parseQuantities([" 3", "+5\n", "-2", "10"], allowed: -5...10)
    try expectEqual(try r.get(), [3, 5, -2, 10])
    try expectEqual(totalQuantity(["1", "2", "3"], allowed: 0...3), .success(6))
}

func test_first_failure_wins() throws {
    let r = parseQuantities(["1", " 4.0 ", "99", "x"], allowed: 0...10)
    try expectEqual(r, .failure(.notANumber(index: 1, text: " 4.0 ")))
    try expectEqual(parseQuantities(["1", "99", "x"], allowed: 0...10), .failure(.outOfRange(index: 1, value: 99)))
    try expectEqual(parseQuantities(["", "1"], allowed: 0...10), .failure(.notANumber(index: 0, text: "")))
    try expectEqual(parseQuantities(["1e3"], allowed: 0...10_000), .failure(.notANumber(index: 0, text: "1e3")))
}

func test_empty_input() throws {
    try expectEqual(parseQuantities([], allowed: 0...1), .failure(.empty))
    try expectEqual(totalQuantity([], allowed: 0...1), .failure(.empty))
}

func test_total_passes_failures_and_detects_overflow() throws {
    try expectEqual(totalQuantity(["5", "-1"], allowed: 0...9), .failure(.outOfRange(index: 1, value: -1)))
    let big = String(Int.max)
    try expectEqual(totalQuantity([big, "1"], allowed: 0...Int.max), .failure(.totalOverflow))
    try expectEqual(totalQuantity([big, "-1", "1"], allowed: Int.min...Int.max), .success(Int.max))
    switch totalQuantity(["7", " 8 "], allowed: 1...10) {
    case .success(let total): try expectEqual(total, 15)
    case .failure(let error): try fail("unexpected \(error)")
    }
}
