/// Loads values by key; concurrent requests for one key share a single load; successes are cached.
actor RequestCoalescer<Key: Hashable & Sendable, Value: Sendable> {
    init(loader: @escaping @Sendable (Key) async throws -> Value) {
        fatalError("TODO")
    }

    /// How many times the loader has been called.
    var loadCount: Int { fatalError("TODO") }

    /// The cached value, the result of the load in flight, or the result of a new load.
    func value(for key: Key) async throws -> Value {
        fatalError("TODO")
    }

    /// Discards the cached value for `key`.
    func invalidate(_ key: Key) {
        fatalError("TODO")
    }
}
