@propertyWrapper
struct Clamped<Value: Comparable> {
    private let range: ClosedRange<Value>
    private var value: Value
    private var lastWasClamped: Bool

    init(wrappedValue: Value, _ range: ClosedRange<Value>) {
        self.range = range
        self.value = wrappedValue
        self.lastWasClamped = false
        store(wrappedValue)
    }

    private mutating func store(_ newValue: Value) {
        let clamped = min(max(newValue, range.lowerBound), range.upperBound)
        lastWasClamped = clamped != newValue
        value = clamped
    }

    var wrappedValue: Value {
        get { value }
        set { store(newValue) }
    }

    var projectedValue: Bool { lastWasClamped }
}
