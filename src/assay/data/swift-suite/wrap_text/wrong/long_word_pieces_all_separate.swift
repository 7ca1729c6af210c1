func wrapText(_ text: String, width: Int) -> [String] {
    let words = text.split(whereSeparator: { $0.isWhitespace })
    var lines: [String] = []
    var current = ""
    var currentCount = 0
    for word in words {
        var rest = Array(word)
        // Does the whole word fit on the current line?
        if currentCount > 0 && currentCount + 1 + rest.count <= width {
            current += " " + String(rest)
            currentCount += 1 + rest.count
            continue
        }
        if currentCount > 0 {
            lines.append(current)
            current = ""
            currentCount = 0
        }
        while rest.count > width {
            lines.append(String(rest[..<width]))
            rest.removeFirst(width)
        }
        if rest.count == width || !rest.isEmpty && word.count > width {
            lines.append(String(rest))
            current = ""
            currentCount = 0
        } else {
            current = String(rest)
            currentCount = rest.count
        }
    }
    if currentCount > 0 { lines.append(current) }
    return lines
}
