/// Runs `operation` up to `maxAttempts` times (at least once), waiting `initialDelay`, then twice
/// as long each time, between attempts. Rethrows the last error, or a non-retryable one at once;
/// throws `CancellationError` promptly if the task is cancelled.
func retry<T>(
    maxAttempts: Int,
    initialDelay: Duration,
    shouldRetry: (any Error) -> Bool = { _ in true },
    operation: () async throws -> T
) async throws -> T {
    fatalError("TODO")
}
