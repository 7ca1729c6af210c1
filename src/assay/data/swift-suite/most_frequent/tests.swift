private struct TOnePass: Sequence, IteratorProtocol {
    var remaining: [Int]
    mutating func next() -> Int? {
        guard !remaining.isEmpty else { return nil }
        return remaining.removeFirst()
    }
}

func test_integers_and_strings() throws {
    let r = try expectNotNil(mostFrequent([3, 1, 3, 2, 3, 1]))
    try expectEqual(r.element, 3)
    try expectEqual(r.count, 3)
    let w = try expectNotNil(mostFrequent(["pear", "fig", "pear", "apple", "fig", "pear"]))
    try expectEqual(w.element, "pear")
    try expectEqual(w.count, 3)
}

func test_ties_go_to_the_smallest_element() throws {
    let r = try expectNotNil(mostFrequent([9, 4, 9, 4, 7, 7, 1]))
    try expectEqual(r.element, 4)
    try expectEqual(r.count, 2)
    let s = try expectNotNil(mostFrequent(Set([50, 10, 30])))
    try expectEqual(s.element, 10)
    try expectEqual(s.count, 1)
    let chars = try expectNotNil(mostFrequent("mississippi"))
    try expectEqual(chars.element, "i")
    try expectEqual(chars.count, 4)
}

func test_empty_sequences_give_nil() throws {
    try expectNil(mostFrequent([Int]()))
    try expectNil(mostFrequent(""))
    try expectNil(mostFrequent(0..<0))
}

func test_any_sequence_kind() throws {
    let lazy = try expectNotNil(mostFrequent((1...100).lazy.map { $0 % 7 }))
    try expectEqual(lazy.element, 1)
    try expectEqual(lazy.count, 15)
    let once = try expectNotNil(mostFrequent(TOnePass(remaining: [5, 6, 6, 5, 8])))
    try expectEqual(once.element, 5)
    try expectEqual(once.count, 2)
}
