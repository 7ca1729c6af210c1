func evaluate(_ expr: Expr, variables: [String: Double] = [:]) throws -> Double {
    switch expr {
    case .number(let value):
        return value
    case .variable(let name):
        guard let value = variables[name] else { throw EvalError.unknownVariable(name) }
        return value
    case .negate(let inner):
        return -(try evaluate(inner, variables: variables))
    case let .add(l, r):
        let b = try evaluate(r, variables: variables)
        return (try evaluate(l, variables: variables)) + b
    case let .subtract(l, r):
        let a = try evaluate(l, variables: variables)
        return a - (try evaluate(r, variables: variables))
    case let .multiply(l, r):
        let a = try evaluate(l, variables: variables)
        return a * (try evaluate(r, variables: variables))
    case let .divide(l, r):
        let a = try evaluate(l, variables: variables)
        let b = try evaluate(r, variables: variables)
        guard b != 0 else { throw EvalError.divisionByZero }
        return a / b
    case let .binding(name, value, body):
        var inner = variables
        inner[name] = try evaluate(value, variables: variables)
        return try evaluate(body, variables: inner)
    case let .call(name, args):
        switch name {
        case "abs":
            guard args.count == 1 else { throw EvalError.wrongArgumentCount(function: name, got: args.count) }
            return abs(try evaluate(args[0], variables: variables))
        case "min", "max":
            guard !args.isEmpty else { throw EvalError.wrongArgumentCount(function: name, got: 0) }
            let values = try args.map { try evaluate($0, variables: variables) }
            return name == "min" ? values.min()! : values.max()!
        default:
            throw EvalError.unknownFunction(name)
        }
    }
}
