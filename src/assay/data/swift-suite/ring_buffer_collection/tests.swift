func test_keeps_the_most_recent_elements_oldest_first() throws {
    var buffer = RingBuffer<Int>(capacity: 3)
    try expect(buffer.isEmpty)
    buffer.append(1)
    buffer.append(2)
    try expectEqual(Array(buffer), [1, 2])
    buffer.append(3)
    buffer.append(4)
    buffer.append(5)
    try expectEqual(Array(buffer), [3, 4, 5])
    try expectEqual(buffer.count, 3)
    try expectEqual(buffer.capacity, 3)
    try expectEqual(buffer[0], 3)
    try expectEqual(buffer.first, 3)
    try expectEqual(buffer.last, 5)
}

func test_collection_algorithms_work() throws {
    var buffer = RingBuffer<String>(capacity: 4)
    for word in ["a", "bb", "ccc", "dddd", "eeeee", "ffffff"] { buffer.append(word) }
    try expectEqual(buffer.map(\.count), [3, 4, 5, 6])
    try expectEqual(Array(buffer.reversed()), ["ffffff", "eeeee", "dddd", "ccc"])
    try expectEqual(Array(buffer[1..<3]), ["dddd", "eeeee"])
    try expect(buffer.contains("dddd"))
    try expect(!buffer.contains("a"))
    try expectEqual(buffer.firstIndex(of: "eeeee"), 2)
    try expectEqual(buffer.indices, 0..<4)
    var joined = ""
    for word in buffer { joined += word.prefix(1) }
    try expectEqual(joined, "cdef")
}

func test_value_semantics_and_remove_all() throws {
    var a = RingBuffer<Int>(capacity: 2)
    a.append(1)
    a.append(2)
    var b = a
    b.append(3)
    try expectEqual(Array(a), [1, 2])
    try expectEqual(Array(b), [2, 3])
    b.removeAll()
    try expect(b.isEmpty)
    try expectEqual(b.capacity, 2)
    b.append(9)
    try expectEqual(Array(b), [9])
}

func test_conditional_equatable() throws {
    var a = RingBuffer<Int>(capacity: 3)
    var b = RingBuffer<Int>(capacity: 5)
    for i in 1...5 { a.append(i) }        // wrapped: holds 3, 4, 5
    for i in 3...5 { b.append(i) }        // not wrapped
    try expect(a == b, "same elements in the same order")
    b.append(6)
    try expect(a != b)
    var c = RingBuffer<Int>(capacity: 1)
    c.append(0)
    var d = RingBuffer<Int>(capacity: 1)
    d.append(0)
    d.append(0)
    try expectEqual(c, d)
}
