func concurrentMap<T: Sendable, R: Sendable>(
    _ items: [T],
    maxConcurrency: Int,
    _ transform: @escaping @Sendable (T) async throws -> R
) async throws -> [R] {
    let limit = max(1, maxConcurrency)
    return try await withThrowingTaskGroup(of: (Int, R).self) { group in
        var results = [R?](repeating: nil, count: items.count)
        var next = 0
        while next < min(limit, items.count) {
            let index = next
            group.addTask { (index, try await transform(items[index])) }
            next += 1
        }
        while let (index, value) = try await group.next() {
            results[index] = value
            if next < items.count {
                let index = next
                group.addTask { (index, try await transform(items[index])) }
                next += 1
            }
        }
        return results.map { $0! }
    }
}
