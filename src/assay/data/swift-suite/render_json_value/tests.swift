func test_scalars() throws {
    try expectEqual(renderJSON(.null), "null")
    try expectEqual(renderJSON(.bool(true)), "true")
    try expectEqual(renderJSON(.bool(false)), "false")
    try expectEqual(renderJSON(.string("hi")), "\"hi\"")
    try expectEqual(renderJSON(.array([])), "[]")
    try expectEqual(renderJSON(.object([:])), "{}")
}

func test_numbers() throws {
    try expectEqual(renderJSON(.number(3)), "3")
    try expectEqual(renderJSON(.number(-12)), "-12")
    try expectEqual(renderJSON(.number(-0.0)), "0")
    try expectEqual(renderJSON(.number(0.5)), "0.5")
    try expectEqual(renderJSON(.number(-2.25)), "-2.25")
    try expectEqual(renderJSON(.number(1e20)), "1e+20")
    try expectEqual(renderJSON(.number(123456789012345)), "123456789012345")
    try expectEqual(renderJSON(.array([.number(.nan), .number(.infinity), .number(-.infinity)])), "[null,null,null]")
}

func test_string_escaping() throws {
    let s = "quote\" back\\ nl\n cr\r tab\t bell\u{07} nul\u{01} slash/ é 🎉"
    try expectEqual(renderJSON(.string(s)),
                    #""quote\" back\\ nl\n cr\r tab\t bell\u0007 nul\u0001 slash/ é 🎉""#)
    try expectEqual(renderJSON(.string("\u{1F}")), #""\u001f""#)
}

func test_nested_objects_have_sorted_keys() throws {
    var members: [String: JSONValue] = [:]
    for (i, key) in ["kiwi", "apple", "mango", "banana", "cherry", "date", "fig", "grape", "lemon", "Zebra"].enumerated() {
        members[key] = .number(Double(i))
    }
    try expectEqual(renderJSON(.object(members)),
                    #"{"Zebra":9,"apple":1,"banana":3,"cherry":4,"date":5,"fig":6,"grape":7,"kiwi":0,"lemon":8,"mango":2}"#)
    let nested = JSONValue.object(["b": .array([.bool(true), .null, .object(["y": .string("a\"b"), "x": .number(1.5)])]), "a": .null])
    try expectEqual(renderJSON(nested), #"{"a":null,"b":[true,null,{"x":1.5,"y":"a\"b"}]}"#)
}
