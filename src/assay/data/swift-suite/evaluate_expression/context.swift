indirect enum Expr {
    case number(Double)
    case variable(String)
    case negate(Expr)
    case add(Expr, Expr)
    case subtract(Expr, Expr)
    case multiply(Expr, Expr)
    case divide(Expr, Expr)
    /// `let name = value in body`: evaluates `body` with `name` bound to the value of `value`.
    case binding(name: String, value: Expr, body: Expr)
    /// A call of a built-in function: "abs" (exactly 1 argument), "min" and "max" (1 or more arguments).
    case call(String, [Expr])
}

enum EvalError: Error, Equatable {
    case unknownVariable(String)
    case divisionByZero
    case unknownFunction(String)
    case wrongArgumentCount(function: String, got: Int)
}
