/// One sort criterion on `Root`, type-erased over the compared value's type.
struct SortKey<Root> {
    init<Value: Comparable>(_ keyPath: KeyPath<Root, Value>, ascending: Bool = true) {
        fatalError("TODO")
    }

    /// For optional values: nil sorts after every non-nil value, in both directions.
    init<Value: Comparable>(_ keyPath: KeyPath<Root, Value?>, ascending: Bool = true) {
        fatalError("TODO")
    }
}

extension Sequence {
    /// A stable sort by `keys` (first key primary, later keys break ties).
    func sorted(byKeys keys: [SortKey<Element>]) -> [Element] {
        fatalError("TODO")
    }
}
