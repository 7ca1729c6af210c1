actor RequestCoalescer<Key: Hashable & Sendable, Value: Sendable> {
    private enum Entry {
        case loading(Task<Value, Error>)
        case ready(Value)
    }

    private let loader: @Sendable (Key) async throws -> Value
    private var entries: [Key: Entry] = [:]
    private(set) var loadCount = 0

    init(loader: @escaping @Sendable (Key) async throws -> Value) {
        self.loader = loader
    }

    func value(for key: Key) async throws -> Value {
        switch entries[key] {
        case .ready(let value)?:
            return value
        case .loading(let task)?:
            return try await task.value
        case nil:
            let loader = self.loader
            let task = Task { try await loader(key) }
            entries[key] = .loading(task)
            loadCount += 1
            do {
                let value = try await task.value
                entries[key] = .ready(value)
                return value
            } catch {
                throw error
            }
        }
    }

    func invalidate(_ key: Key) {
        if case .ready? = entries[key] {
            entries[key] = nil
        }
    }
}
