func concurrentMap<T: Sendable, R: Sendable>(
    _ items: [T],
    maxConcurrency: Int,
    _ transform: @escaping @Sendable (T) async throws -> R
) async throws -> [R] {
    try await withThrowingTaskGroup(of: (Int, R).self) { group in
        for (index, item) in items.enumerated() {
            group.addTask { (index, try await transform(item)) }
        }
        var results = [R?](repeating: nil, count: items.count)
        for try await (index, value) in group {
            results[index] = value
        }
        return results.map { $0! }
    }
}
