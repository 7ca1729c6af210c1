/// A LIFO stack with value semantics, backed by a private class buffer that is copied on write
/// only when shared.
struct CowStack<Element> {
    init() {
        fatalError("TODO")
    }

    var count: Int { fatalError("TODO") }
    var isEmpty: Bool { fatalError("TODO") }
    /// The top element, or nil.
    var top: Element? { fatalError("TODO") }
    /// The elements from bottom to top.
    var elements: [Element] { fatalError("TODO") }
    /// `ObjectIdentifier` of the buffer object currently used.
    var storageID: ObjectIdentifier { fatalError("TODO") }

    mutating func push(_ element: Element) {
        fatalError("TODO")
    }

    /// Removes and returns the top element; nil (and no copy) when empty.
    @discardableResult
    mutating func pop() -> Element? {
        fatalError("TODO")
    }
}
