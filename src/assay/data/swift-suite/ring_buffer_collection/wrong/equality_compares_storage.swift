struct RingBuffer<Element>: RandomAccessCollection {
    private var storage: [Element?]
    private var head = 0          // storage index of the oldest element
    private(set) var count = 0

    init(capacity: Int) {
        storage = Array(repeating: nil, count: Swift.max(1, capacity))
    }

    var capacity: Int { storage.count }
    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(position: Int) -> Element {
        precondition(position >= 0 && position < count, "index out of range")
        return storage[(head + position) % storage.count]!
    }

    mutating func append(_ element: Element) {
        if count < storage.count {
            storage[(head + count) % storage.count] = element
            count += 1
        } else {
            storage[head] = element
            head = (head + 1) % storage.count
        }
    }

    mutating func removeAll() {
        storage = Array(repeating: nil, count: storage.count)
        head = 0
        count = 0
    }
}

extension RingBuffer: Equatable where Element: Equatable {
    static func == (lhs: RingBuffer, rhs: RingBuffer) -> Bool {
        lhs.head == rhs.head && lhs.count == rhs.count && lhs.storage == rhs.storage
    }
}
