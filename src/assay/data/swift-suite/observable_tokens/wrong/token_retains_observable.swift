final class Observable<Value> {
    private var handlers: [(id: Int, handler: (Value) -> Void)] = []
    private var nextID = 0
    private var storage: Value

    init(_ value: Value) {
        storage = value
    }

    var value: Value {
        get { storage }
        set {
            storage = newValue
            let round = handlers.map(\.id)
            for id in round {
                // Skip observations cancelled earlier in this round.
                guard let entry = handlers.first(where: { $0.id == id }) else { continue }
                entry.handler(newValue)
            }
        }
    }

    var observerCount: Int { handlers.count }

    func observe(_ handler: @escaping (Value) -> Void) -> ObservationToken {
        let id = nextID
        nextID += 1
        handlers.append((id, handler))
        return ObservationToken {
            self.handlers.removeAll { $0.id == id }
        }
    }
}

final class ObservationToken {
    private var onCancel: (() -> Void)?

    init(onCancel: @escaping () -> Void) {
        self.onCancel = onCancel
    }

    func cancel() {
        let action = onCancel
        onCancel = nil
        action?()
    }

    deinit {
        cancel()
    }
}
