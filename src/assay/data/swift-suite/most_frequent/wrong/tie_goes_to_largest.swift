func mostFrequent<S: Sequence>(_ elements: S) -> (element: S.Element, count: Int)? where S.Element: Hashable & Comparable {
    var counts: [S.Element: Int] = [:]
    for element in elements {
        counts[element, default: 0] += 1
    }
    guard let top = counts.max(by: { a, b in a.value != b.value ? a.value < b.value : a.key < b.key }) else {
        return nil
    }
    return (top.key, top.value)
}
