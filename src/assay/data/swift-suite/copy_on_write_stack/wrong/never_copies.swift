struct CowStack<Element> {
    private final class Buffer {
        var items: [Element]
        init(_ items: [Element]) { self.items = items }
    }

    private var buffer: Buffer

    init() {
        buffer = Buffer([])
    }

    var count: Int { buffer.items.count }
    var isEmpty: Bool { buffer.items.isEmpty }
    var top: Element? { buffer.items.last }
    var elements: [Element] { buffer.items }
    var storageID: ObjectIdentifier { ObjectIdentifier(buffer) }

    private mutating func makeUnique() {

    }

    mutating func push(_ element: Element) {
        makeUnique()
        buffer.items.append(element)
    }

    @discardableResult
    mutating func pop() -> Element? {
        guard !buffer.items.isEmpty else { return nil }
        makeUnique()
        return buffer.items.removeLast()
    }
}
