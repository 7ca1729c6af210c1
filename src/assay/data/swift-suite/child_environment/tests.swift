import Foundation

func test_exact_variables_round_trip() throws {
    let vars = ["GREETING": "hello world", "EQUATION": "a=b=c", "EMPTY": "", "UNICODE": "naïve ✓"]
    try expectEqual(try childEnvironment(vars), vars)
}

func test_nothing_is_inherited() throws {
    setenv("ASSAY_PARENT_ONLY_VARIABLE", "1", 1)
    let seen = try childEnvironment(["ONLY": "me"])
    try expectEqual(seen, ["ONLY": "me"])
    try expectEqual(try childEnvironment([:]), [:])
}

func test_invalid_variables_throw() throws {
    try expectThrows(try childEnvironment(["": "x"]), EnvironmentError.invalidVariable(""))
    try expectThrows(try childEnvironment(["A=B": "x"]), EnvironmentError.invalidVariable("A=B"))
    try expectThrows(try childEnvironment(["OK": "1", "MULTI": "line1\nline2"]), EnvironmentError.invalidVariable("MULTI"))
}

func test_values_keep_everything_after_first_equals() throws {
    let seen = try childEnvironment(["URL": "https://x.test/?a=1&b=2", "TRAILING": "end="])
    try expectEqual(seen["URL"], "https://x.test/?a=1&b=2")
    try expectEqual(seen["TRAILING"], "end=")
}
