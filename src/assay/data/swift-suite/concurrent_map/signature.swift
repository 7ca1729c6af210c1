/// Maps `items` with `transform`, running up to `maxConcurrency` (at least 1) calls concurrently,
/// starting items in order and returning results in input order. Rethrows the first error.
func concurrentMap<T: Sendable, R: Sendable>(
    _ items: [T],
    maxConcurrency: Int,
    _ transform: @escaping @Sendable (T) async throws -> R
) async throws -> [R] {
    fatalError("TODO")
}
