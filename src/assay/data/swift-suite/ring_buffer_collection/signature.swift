/// Keeps the last `capacity` appended elements; a random-access collection from oldest to newest.
struct RingBuffer<Element>: RandomAccessCollection {
    init(capacity: Int) {
        fatalError("TODO")
    }

    var capacity: Int { fatalError("TODO") }

    var startIndex: Int { fatalError("TODO") }
    var endIndex: Int { fatalError("TODO") }

    /// The element at `position` (0 is the oldest).
    subscript(position: Int) -> Element { fatalError("TODO") }

    /// Appends a newest element, discarding the oldest one when full.
    mutating func append(_ element: Element) {
        fatalError("TODO")
    }

    /// Removes every element.
    mutating func removeAll() {
        fatalError("TODO")
    }
}

/// Equal when the elements (oldest to newest) are equal.
extension RingBuffer: Equatable where Element: Equatable {
    static func == (lhs: RingBuffer, rhs: RingBuffer) -> Bool {
        fatalError("TODO")
    }
}
