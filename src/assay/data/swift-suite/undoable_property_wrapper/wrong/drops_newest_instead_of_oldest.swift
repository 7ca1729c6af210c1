@propertyWrapper
struct Undoable<Value> {
    private var value: Value
    private(set) var history: [Value] = []
    private let limit: Int

    init(wrappedValue: Value, limit: Int = 10) {
        self.value = wrappedValue
        self.limit = max(0, limit)
    }

    var wrappedValue: Value {
        get { value }
        set {
            history.append(value)
            if history.count > limit {
                history.removeLast(history.count - limit)
            }
            value = newValue
        }
    }

    var projectedValue: Undoable<Value> {
        get { self }
        set { self = newValue }
    }

    var canUndo: Bool { !history.isEmpty }

    @discardableResult
    mutating func undo() -> Bool {
        guard let previous = history.popLast() else { return false }
        value = previous
        return true
    }
}
