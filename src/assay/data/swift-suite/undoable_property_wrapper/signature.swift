/// Remembers up to `limit` previous values of a property; `$property.undo()` restores the last one.
@propertyWrapper
struct Undoable<Value> {
    init(wrappedValue: Value, limit: Int = 10) {
        fatalError("TODO")
    }

    /// The current value; assigning pushes the previous value onto `history`.
    var wrappedValue: Value {
        get { fatalError("TODO") }
        set { fatalError("TODO") }
    }

    /// The wrapper itself, so `$property.undo()` works.
    var projectedValue: Undoable<Value> {
        get { fatalError("TODO") }
        set { fatalError("TODO") }
    }

    /// Previous values, oldest first, at most `limit` of them.
    var history: [Value] { fatalError("TODO") }

    /// Whether `undo()` would restore a value.
    var canUndo: Bool { fatalError("TODO") }

    /// Restores the most recent previous value; false if there is none.
    @discardableResult
    mutating func undo() -> Bool {
        fatalError("TODO")
    }
}
