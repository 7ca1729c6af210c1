@propertyWrapper
struct Clamped<Value: Comparable> {
    private let range: ClosedRange<Value>
    private var value: Value
    private var lastWasClamped = false

    init(initialValue: Value, range: ClosedRange<Value>) {
        self.range = range
        self.value = min(max(initialValue, range.lowerBound), range.upperBound)
        self.lastWasClamped = value != initialValue
    }

    var wrappedValue: Value {
        get { value }
        set {
            let clamped = min(max(newValue, range.lowerBound), range.upperBound)
            lastWasClamped = clamped != newValue
            value = clamped
        }
    }

    var projectedValue: Bool { lastWasClamped }
}
