private actor TTracker {
    var running = 0
    var maxRunning = 0
    var started: [Int] = []
    func begin(_ item: Int) {
        running += 1
        maxRunning = max(maxRunning, running)
        started.append(item)
    }
    func end() { running -= 1 }
}

private enum TBoom: Error, Equatable { case at(Int) }

func test_results_keep_input_order() async throws {
    let results = try await concurrentMap(Array(0..<6), maxConcurrency: 6) { (i: Int) -> String in
        try await Task.sleep(nanoseconds: UInt64(6 - i) * 15_000_000)
        return "item \(i)"
    }
    try expectEqual(results, (0..<6).map { "item \($0)" })
}

func test_runs_concurrently_up_to_the_limit() async throws {
    let tracker = TTracker()
    let results = try await concurrentMap(Array(0..<10), maxConcurrency: 3) { (i: Int) -> Int in
        await tracker.begin(i)
        try await Task.sleep(nanoseconds: 20_000_000)
        await tracker.end()
        return i * i
    }
    try expectEqual(results, (0..<10).map { $0 * $0 })
    let peak = await tracker.maxRunning
    try expect(peak <= 3, "at most 3 at once, saw \(peak)")
    try expect(peak >= 2, "items must run concurrently, saw at most \(peak) at once")
    let started = await tracker.started
    try expectEqual(started.sorted(), Array(0..<10))
}

func test_error_stops_new_work() async throws {
    let tracker = TTracker()
    try await expectThrowsAsync(TBoom.at(2)) {
        try await concurrentMap(Array(0..<6), maxConcurrency: 1) { (i: Int) -> Int in
            await tracker.begin(i)
            if i == 2 { throw TBoom.at(2) }
            try await Task.sleep(nanoseconds: 2_000_000)
            await tracker.end()
            return i
        }
    }
    let started = await tracker.started
    try expectEqual(started, [0, 1, 2])
}

func test_empty_input_and_limit_below_one() async throws {
    let empty = try await concurrentMap([Int](), maxConcurrency: 4) { (i: Int) -> Int in i }
    try expectEqual(empty, [])
    let tracker = TTracker()
    let results = try await concurrentMap([1, 2, 3], maxConcurrency: 0) { (i: Int) -> Int in
        await tracker.begin(i)
        try await Task.sleep(nanoseconds: 5_000_000)
        await tracker.end()
        return -i
    }
    try expectEqual(results, [-1, -2, -3])
    let peak = await tracker.maxRunning
    try expectEqual(peak, 1)
}
