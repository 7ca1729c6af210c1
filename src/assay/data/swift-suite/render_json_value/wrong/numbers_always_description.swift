private func renderString(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default:
            out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

private func renderNumber(_ x: Double) -> String {
    guard x.isFinite else { return "null" }
    return x.description
}

func renderJSON(_ value: JSONValue) -> String {
    switch value {
    case .null:
        return "null"
    case .bool(let b):
        return b ? "true" : "false"
    case .number(let x):
        return renderNumber(x)
    case .string(let s):
        return renderString(s)
    case .array(let items):
        return "[" + items.map(renderJSON).joined(separator: ",") + "]"
    case .object(let members):
        let parts = members.keys.sorted().map { key in renderString(key) + ":" + renderJSON(members[key]!) }
        return "{" + parts.joined(separator: ",") + "}"
    }
}
