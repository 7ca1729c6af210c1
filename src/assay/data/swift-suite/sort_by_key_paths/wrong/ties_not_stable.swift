struct SortKey<Root> {
    /// Negative if the first argument goes first, positive if the second does, 0 if tied.
    let compare: (Root, Root) -> Int

    private static func order<Value: Comparable>(_ a: Value, _ b: Value, ascending: Bool) -> Int {
        if a < b { return ascending ? -1 : 1 }
        if b < a { return ascending ? 1 : -1 }
        return 0
    }

    init<Value: Comparable>(_ keyPath: KeyPath<Root, Value>, ascending: Bool = true) {
        compare = { a, b in SortKey.order(a[keyPath: keyPath], b[keyPath: keyPath], ascending: ascending) }
    }

    init<Value: Comparable>(_ keyPath: KeyPath<Root, Value?>, ascending: Bool = true) {
        compare = { a, b in
            switch (a[keyPath: keyPath], b[keyPath: keyPath]) {
            case (nil, nil): return 0
            case (nil, _): return 1
            case (_, nil): return -1
            case let (x?, y?): return SortKey.order(x, y, ascending: ascending)
            }
        }
    }
}

extension Sequence {
    func sorted(byKeys keys: [SortKey<Element>]) -> [Element] {
        // Decorate with the original position so ties are broken stably whatever the algorithm.
        let decorated = Array(enumerated())
        return decorated.sorted { lhs, rhs in
            for key in keys {
                let c = key.compare(lhs.element, rhs.element)
                if c != 0 { return c < 0 }
            }
            return lhs.offset > rhs.offset
        }.map(\.element)
    }
}
