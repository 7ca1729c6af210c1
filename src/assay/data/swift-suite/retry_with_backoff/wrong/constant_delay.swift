func retry<T>(
    maxAttempts: Int,
    initialDelay: Duration,
    shouldRetry: (any Error) -> Bool = { _ in true },
    operation: () async throws -> T
) async throws -> T {
    let attempts = max(1, maxAttempts)
    var delay = initialDelay
    var attempt = 1
    while true {
        try Task.checkCancellation()
        do {
            return try await operation()
        } catch {
            if attempt >= attempts || !shouldRetry(error) { throw error }
        }
        try await Task.sleep(for: delay)
        attempt += 1
    }
}
