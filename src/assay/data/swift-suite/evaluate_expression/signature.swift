/// Evaluates `expr` with the given variable bindings. Operands are evaluated left to right;
/// the first error (unknown variable/function, wrong argument count, division by zero) is thrown.
func evaluate(_ expr: Expr, variables: [String: Double] = [:]) throws -> Double {
    fatalError("TODO")
}
