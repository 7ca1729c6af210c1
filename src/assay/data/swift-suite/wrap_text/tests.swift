func test_basic_greedy_wrapping() throws {
    try expectEqual(wrapText("the quick brown fox", width: 10), ["the quick", "brown fox"])
    try expectEqual(wrapText("the quick brown fox", width: 9), ["the quick", "brown fox"])
    try expectEqual(wrapText("the quick brown fox", width: 8), ["the", "quick", "brown", "fox"])
    try expectEqual(wrapText("a b c d e", width: 3), ["a b", "c d", "e"])
}

func test_whitespace_runs_and_empty_text() throws {
    try expectEqual(wrapText("  one\ttwo \n\n three  ", width: 20), ["one two three"])
    try expectEqual(wrapText("line1\r\nline2", width: 5), ["line1", "line2"])
    try expectEqual(wrapText("", width: 5), [])
    try expectEqual(wrapText(" \n\t ", width: 5), [])
}

func test_long_words_are_split() throws {
    try expectEqual(wrapText("abcdefghij xy", width: 4), ["abcd", "efgh", "ij", "xy"])
    try expectEqual(wrapText("abcdefghij xy", width: 5), ["abcde", "fghij", "xy"])
    try expectEqual(wrapText("ab abcdefg h", width: 3), ["ab", "abc", "def", "g h"])
}

func test_grapheme_clusters_count_as_one() throws {
    let cafe = "cafe\u{301}"          // "café" with a combining accent: 4 Characters, 5 scalars
    let family = "👨‍👩‍👧"                // 1 Character, 5 scalars
    try expectEqual(wrapText("\(cafe) \(cafe)", width: 9), ["\(cafe) \(cafe)"])
    try expectEqual(wrapText("\(family) \(family) 🇯🇵🇯🇵", width: 3), ["\(family) \(family)", "🇯🇵🇯🇵"])
    try expectEqual(wrapText("🇯🇵🇫🇷🇩🇪🇮🇹🇪🇸", width: 2), ["🇯🇵🇫🇷", "🇩🇪🇮🇹", "🇪🇸"])
}
