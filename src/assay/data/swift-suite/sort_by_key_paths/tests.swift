private struct TPerson: Equatable {
    let first: String
    let last: String
    let age: Int
    let nickname: String?
}

private let tPeople = [
    TPerson(first: "Ada", last: "Lovelace", age: 36, nickname: nil),
    TPerson(first: "Alan", last: "Turing", age: 41, nickname: "Prof"),
    TPerson(first: "Grace", last: "Hopper", age: 85, nickname: "Amazing Grace"),
    TPerson(first: "Alan", last: "Kay", age: 84, nickname: nil),
    TPerson(first: "Barbara", last: "Liskov", age: 84, nickname: "Barb"),
    TPerson(first: "Edsger", last: "Dijkstra", age: 72, nickname: "EWD"),
]

func test_single_key_ascending_and_descending() throws {
    try expectEqual(tPeople.sorted(byKeys: [SortKey(\.age)]).map(\.last),
                    ["Lovelace", "Turing", "Dijkstra", "Kay", "Liskov", "Hopper"])
    try expectEqual(tPeople.sorted(byKeys: [SortKey(\.last, ascending: false)]).map(\.last),
                    ["Turing", "Lovelace", "Liskov", "Kay", "Hopper", "Dijkstra"])
}

func test_multiple_keys_of_different_types() throws {
    let keys: [SortKey<TPerson>] = [SortKey(\.first), SortKey(\.age, ascending: false)]
    try expectEqual(tPeople.sorted(byKeys: keys).map(\.last),
                    ["Lovelace", "Kay", "Turing", "Liskov", "Dijkstra", "Hopper"])
    let byNameLength: [SortKey<TPerson>] = [SortKey(\.first.count), SortKey(\.last)]
    try expectEqual(tPeople.sorted(byKeys: byNameLength).map(\.first),
                    ["Ada", "Alan", "Alan", "Grace", "Edsger", "Barbara"])
}

func test_sort_is_stable() throws {
    // Kay and Liskov are both 84: input order (Kay first) is kept in both directions.
    try expectEqual(tPeople.sorted(byKeys: [SortKey(\.age, ascending: false)]).map(\.last),
                    ["Hopper", "Kay", "Liskov", "Dijkstra", "Turing", "Lovelace"])
    let words = ["pear", "fig", "kiwi", "plum", "date", "lime"]
    try expectEqual(words.sorted(byKeys: [SortKey(\.count)]), ["fig", "pear", "kiwi", "plum", "date", "lime"])
    try expectEqual(words.sorted(byKeys: []), words)
}

func test_nil_values_sort_last_in_both_directions() throws {
    try expectEqual(tPeople.sorted(byKeys: [SortKey(\.nickname)]).map(\.last),
                    ["Hopper", "Liskov", "Dijkstra", "Turing", "Lovelace", "Kay"])
    try expectEqual(tPeople.sorted(byKeys: [SortKey(\.nickname, ascending: false)]).map(\.last),
                    ["Turing", "Dijkstra", "Liskov", "Hopper", "Lovelace", "Kay"])
    try expectEqual(tPeople.sorted(byKeys: [SortKey(\.nickname, ascending: false), SortKey(\.age)]).suffix(2).map(\.last),
                    ["Lovelace", "Kay"])
}

func test_works_on_any_sequence() throws {
    let numbers = (1...10).lazy.map { ($0 * 7) % 11 }
    try expectEqual(numbers.sorted(byKeys: [SortKey(\.self)]), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    try expectEqual(Set([3, 1, 2]).sorted(byKeys: [SortKey(\.self, ascending: false)]), [3, 2, 1])
}
