func test_arithmetic_and_variables() throws {
    // (x + 2) * -(y - 10) / 4
    let e = Expr.divide(.multiply(.add(.variable("x"), .number(2)), .negate(.subtract(.variable("y"), .number(10)))), .number(4))
    try expectEqual(try evaluate(e, variables: ["x": 3, "y": 2]), 10)
    try expectEqual(try evaluate(.number(1.5)), 1.5)
    try expectThrows(try evaluate(.add(.number(1), .variable("nope"))), EvalError.unknownVariable("nope"))
}

func test_division_by_zero() throws {
    try expectThrows(try evaluate(.divide(.number(1), .number(0))), EvalError.divisionByZero)
    try expectThrows(try evaluate(.divide(.number(1), .negate(.number(0)))), EvalError.divisionByZero)
    try expectThrows(try evaluate(.divide(.number(0), .subtract(.variable("a"), .variable("a"))), variables: ["a": 7]),
                     EvalError.divisionByZero)
    try expectEqual(try evaluate(.divide(.number(0), .number(5))), 0)
}

func test_bindings_shadow_and_are_scoped() throws {
    // let x = x + 1 in (let x = x * 10 in x) + x, with x = 1 outside  =>  (20) + 2
    let e = Expr.binding(name: "x", value: .add(.variable("x"), .number(1)),
                         body: .add(.binding(name: "x", value: .multiply(.variable("x"), .number(10)), body: .variable("x")),
                                    .variable("x")))
    try expectEqual(try evaluate(e, variables: ["x": 1]), 22)
    // the binding is not visible after its body
    let leak = Expr.add(.binding(name: "t", value: .number(1), body: .variable("t")), .variable("t"))
    try expectThrows(try evaluate(leak), EvalError.unknownVariable("t"))
}

func test_function_calls() throws {
    try expectEqual(try evaluate(.call("abs", [.number(-4)])), 4)
    try expectEqual(try evaluate(.call("max", [.number(3), .variable("v"), .number(-1)]), variables: ["v": 8]), 8)
    try expectEqual(try evaluate(.call("min", [.number(3)])), 3)
    try expectThrows(try evaluate(.call("abs", [.number(1), .number(2)])), EvalError.wrongArgumentCount(function: "abs", got: 2))
    try expectThrows(try evaluate(.call("min", [])), EvalError.wrongArgumentCount(function: "min", got: 0))
    try expectThrows(try evaluate(.call("sqrt", [.variable("missing")])), EvalError.unknownFunction("sqrt"))
}

func test_first_error_in_evaluation_order() throws {
    let e = Expr.add(.variable("first"), .divide(.number(1), .number(0)))
    try expectThrows(try evaluate(e), EvalError.unknownVariable("first"))
    let f = Expr.add(.divide(.number(1), .number(0)), .variable("second"))
    try expectThrows(try evaluate(f), EvalError.divisionByZero)
}
