/// A value that notifies active observers of each assignment.
final class Observable<Value> {
    init(_ value: Value) {
        fatalError("TODO")
    }

    /// Assigning notifies every active observer, in registration order.
    var value: Value {
        get { fatalError("TODO") }
        set { fatalError("TODO") }
    }

    /// The number of active observations.
    var observerCount: Int { fatalError("TODO") }

    /// Registers `handler` until the returned token is cancelled or deallocated.
    func observe(_ handler: @escaping (Value) -> Void) -> ObservationToken {
        fatalError("TODO")
    }
}

/// Owns one observation: `cancel()` or deallocation ends it. Does not keep the observable alive.
final class ObservationToken {
    func cancel() {
        fatalError("TODO")
    }
}
