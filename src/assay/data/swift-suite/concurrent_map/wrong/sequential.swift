func concurrentMap<T: Sendable, R: Sendable>(
    _ items: [T],
    maxConcurrency: Int,
    _ transform: @escaping @Sendable (T) async throws -> R
) async throws -> [R] {
    var results: [R] = []
    for item in items {
        results.append(try await transform(item))
    }
    return results
}
