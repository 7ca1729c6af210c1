private func trimSpacesAndTabs(_ s: Substring) -> String {
    let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let start = s.firstIndex(where: { !isBlank($0) }) else { return "" }
    let end = s.lastIndex(where: { !isBlank($0) })!
    return String(s[start...end])
}

func parseConfig(_ text: String) throws -> [String: String] {
    var result: [String: String] = [:]
    let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    for (offset, rawLine) in lines.enumerated() {
        let lineNumber = offset + 1
        let line = rawLine
        let trimmed = trimSpacesAndTabs(line)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
        guard let eq = line.firstIndex(of: "=") else {
            throw ConfigError.missingSeparator(line: lineNumber)
        }
        let key = trimSpacesAndTabs(line[..<eq])
        let value = trimSpacesAndTabs(line[line.index(after: eq)...])
        guard !key.isEmpty else { throw ConfigError.emptyKey(line: lineNumber) }
        result[key] = value
    }
    return result
}
