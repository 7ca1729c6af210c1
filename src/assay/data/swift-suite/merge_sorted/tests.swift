private struct TTagged: Comparable, CustomStringConvertible {
    let key: Int
    let tag: String
    static func < (l: TTagged, r: TTagged) -> Bool { l.key < r.key }
    static func == (l: TTagged, r: TTagged) -> Bool { l.key == r.key && l.tag == r.tag }
    var description: String { "\(key)\(tag)" }
}

func test_merges_array_with_slice() throws {
    let a = [1, 4, 4, 9]
    let b = [0, 2, 4, 10, 11, 12][...]
    try expectEqual(mergeSorted(a, b), [0, 1, 2, 4, 4, 4, 9, 10, 11, 12])
    try expectEqual(mergeSorted(b, a), [0, 1, 2, 4, 4, 4, 9, 10, 11, 12])
}

func test_empty_inputs_and_tails() throws {
    try expectEqual(mergeSorted([Int](), [Int]()), [])
    try expectEqual(mergeSorted([1, 2], [Int]()), [1, 2])
    try expectEqual(mergeSorted([Int](), 3...5), [3, 4, 5])
    try expectEqual(mergeSorted([1], [2, 3, 4, 5]), [1, 2, 3, 4, 5])
}

func test_stability_prefers_a_on_ties() throws {
    let a = [TTagged(key: 1, tag: "a1"), TTagged(key: 2, tag: "a2"), TTagged(key: 2, tag: "a3")]
    let b = [TTagged(key: 2, tag: "b1"), TTagged(key: 2, tag: "b2"), TTagged(key: 3, tag: "b3")]
    try expectEqual(mergeSorted(a, b).map(\.tag), ["a1", "a2", "a3", "b1", "b2", "b3"])
    try expectEqual(mergeSorted(b, a).map(\.tag), ["a1", "b1", "b2", "a2", "a3", "b3"])
}

func test_characters_from_strings() throws {
    try expectEqual(String(mergeSorted("aceg", "bdfhij")), "abcdefghij")
    try expectEqual(String(mergeSorted("xyz", "")), "xyz")
}
