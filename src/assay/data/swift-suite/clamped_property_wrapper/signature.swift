/// Keeps the wrapped value inside `range`; `$property` tells whether the last value was clamped.
@propertyWrapper
struct Clamped<Value: Comparable> {
    init(wrappedValue: Value, _ range: ClosedRange<Value>) {
        fatalError("TODO")
    }

    /// The clamped value.
    var wrappedValue: Value {
        get { fatalError("TODO") }
        set { fatalError("TODO") }
    }

    /// True if the most recent value given to the wrapper was out of range.
    var projectedValue: Bool { fatalError("TODO") }
}
