@propertyWrapper
struct Clamped<Value: Comparable> {
    private let range: ClosedRange<Value>
    private var value: Value
    private var everClamped: Bool = false

    init(wrappedValue: Value, _ range: ClosedRange<Value>) {
        self.range = range
        self.value = wrappedValue
        store(wrappedValue)
    }

    private mutating func store(_ newValue: Value) {
        let clamped = min(max(newValue, range.lowerBound), range.upperBound)
        if clamped != newValue { everClamped = true }
        value = clamped
    }

    var wrappedValue: Value {
        get { value }
        set { store(newValue) }
    }

    var projectedValue: Bool { everClamped }
}
