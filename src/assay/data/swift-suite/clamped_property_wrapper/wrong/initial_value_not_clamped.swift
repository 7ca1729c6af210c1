@propertyWrapper
struct Clamped<Value: Comparable> {
    private let range: ClosedRange<Value>
    private var value: Value
    private var lastWasClamped = false

    init(wrappedValue: Value, _ range: ClosedRange<Value>) {
        self.range = range
        self.value = wrappedValue
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
