private actor TAttempts {
    var count = 0
    func next() -> Int {
        count += 1
        return count
    }
}

private enum TFailure: Error, Equatable {
    case transient(Int)
    case fatal
}

func test_returns_first_success() async throws {
    let attempts = TAttempts()
    let value = try await retry(maxAttempts: 5, initialDelay: .milliseconds(1)) { () async throws -> String in
        let n = await attempts.next()
        if n < 3 { throw TFailure.transient(n) }
        return "ok after \(n)"
    }
    try expectEqual(value, "ok after 3")
    let count = await attempts.count
    try expectEqual(count, 3)
}

func test_rethrows_last_error_after_max_attempts() async throws {
    let attempts = TAttempts()
    try await expectThrowsAsync(TFailure.transient(4)) {
        try await retry(maxAttempts: 4, initialDelay: .milliseconds(1)) { () async throws -> Int in
            throw TFailure.transient(await attempts.next())
        }
    }
    let count = await attempts.count
    try expectEqual(count, 4)

    let once = TAttempts()
    try await expectThrowsAsync(TFailure.transient(1)) {
        try await retry(maxAttempts: 0, initialDelay: .milliseconds(1)) { () async throws -> Int in
            throw TFailure.transient(await once.next())
        }
    }
}

func test_non_retryable_errors_stop_immediately() async throws {
    let attempts = TAttempts()
    let clock = ContinuousClock()
    let start = clock.now
    try await expectThrowsAsync(TFailure.fatal) {
        try await retry(maxAttempts: 5, initialDelay: .seconds(5), shouldRetry: { ($0 as? TFailure) != .fatal }) { () async throws -> Int in
            _ = await attempts.next()
            throw TFailure.fatal
        }
    }
    let count = await attempts.count
    try expectEqual(count, 1)
    try expect(clock.now - start < .seconds(2), "no waiting before rethrowing")
}

func test_backoff_doubles() async throws {
    let clock = ContinuousClock()
    let start = clock.now
    try await expectThrowsAsync(TFailure.transient(0)) {
        try await retry(maxAttempts: 3, initialDelay: .milliseconds(30)) { () async throws -> Int in
            throw TFailure.transient(0)
        }
    }
    let elapsed = clock.now - start
    try expect(elapsed >= .milliseconds(80), "expected waits of 30 ms and 60 ms, took \(elapsed)")
}

func test_cancellation_is_prompt() async throws {
    let attempts = TAttempts()
    let task = Task { () async throws -> Int in
        try await retry(maxAttempts: 5, initialDelay: .seconds(30)) { () async throws -> Int in
            _ = await attempts.next()
            throw TFailure.transient(0)
        }
    }
    try await Task.sleep(for: .milliseconds(50))
    let clock = ContinuousClock()
    let start = clock.now
    task.cancel()
    let error = try await expectThrowsAsync { try await task.value }
    try expect(error is CancellationError, "expected CancellationError, got \(error)")
    try expect(clock.now - start < .seconds(5), "cancellation must not wait out the delay")
    let count = await attempts.count
    try expectEqual(count, 1)
}
