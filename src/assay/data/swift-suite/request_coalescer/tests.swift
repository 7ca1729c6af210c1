private actor TLoadLog {
    var calls: [String] = []
    func record(_ key: String) -> Int {
        calls.append(key)
        return calls.filter { $0 == key }.count
    }
}

private struct TLoadFailed: Error, Equatable { let key: String }

func test_concurrent_requests_share_one_load() async throws {
    let log = TLoadLog()
    let coalescer = RequestCoalescer<String, String> { key in
        _ = await log.record(key)
        try await Task.sleep(nanoseconds: 30_000_000)
        return key.uppercased()
    }
    let results = try await withThrowingTaskGroup(of: String.self) { group -> [String] in
        for _ in 0..<20 { group.addTask { try await coalescer.value(for: "user") } }
        var all: [String] = []
        for try await value in group { all.append(value) }
        return all
    }
    try expectEqual(results, Array(repeating: "USER", count: 20))
    let count = await coalescer.loadCount
    try expectEqual(count, 1)
}

func test_successes_are_cached_per_key() async throws {
    let log = TLoadLog()
    let coalescer = RequestCoalescer<String, Int> { key in
        await log.record(key)
    }
    let a1 = try await coalescer.value(for: "a")
    let b1 = try await coalescer.value(for: "b")
    let a2 = try await coalescer.value(for: "a")
    try expectEqual([a1, b1, a2], [1, 1, 1])
    let calls = await log.calls
    let count = await coalescer.loadCount
    try expectEqual(calls, ["a", "b"])
    try expectEqual(count, 2)
}

func test_failures_are_shared_but_not_cached() async throws {
    let log = TLoadLog()
    let coalescer = RequestCoalescer<String, String> { key in
        let attempt = await log.record(key)
        try await Task.sleep(nanoseconds: 20_000_000)
        if attempt == 1 { throw TLoadFailed(key: key) }
        return "\(key) on attempt \(attempt)"
    }
    let failures = await withTaskGroup(of: Bool.self) { group -> Int in
        for _ in 0..<5 {
            group.addTask {
                do {
                    _ = try await coalescer.value(for: "flaky")
                    return false
                } catch {
                    return error as? TLoadFailed == TLoadFailed(key: "flaky")
                }
            }
        }
        var n = 0
        for await failed in group where failed { n += 1 }
        return n
    }
    try expectEqual(failures, 5)
    var count = await coalescer.loadCount
    try expectEqual(count, 1)
    let value = try await coalescer.value(for: "flaky")
    try expectEqual(value, "flaky on attempt 2")
    count = await coalescer.loadCount
    try expectEqual(count, 2)
}

func test_invalidate_forces_a_reload() async throws {
    let log = TLoadLog()
    let coalescer = RequestCoalescer<String, Int> { key in await log.record(key) }
    let first = try await coalescer.value(for: "k")
    await coalescer.invalidate("k")
    await coalescer.invalidate("never-loaded")
    let second = try await coalescer.value(for: "k")
    let third = try await coalescer.value(for: "k")
    try expectEqual([first, second, third], [1, 2, 2])
    let count = await coalescer.loadCount
    try expectEqual(count, 2)
}
