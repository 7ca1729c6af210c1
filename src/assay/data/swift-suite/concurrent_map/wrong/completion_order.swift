func concurrentMap<T: Sendable, R: Sendable>(
    _ items: [T],
    maxConcurrency: Int,
    _ transform: @escaping @Sendable (T) async throws -> R
) async throws -> [R] {
    let limit = max(1, maxConcurrency)
    return try await withThrowingTaskGroup(of: R.self) { group in
        var results: [R] = []
        var next = 0
        while next < min(limit, items.count) {
            let item = items[next]
            group.addTask { try await transform(item) }
            next += 1
        }
        while let value = try await group.next() {
            results.append(value)
            if next < items.count {
                let item = items[next]
                group.addTask { try await transform(item) }
                next += 1
            }
        }
        return results
    }
}
