func mostFrequent<S: Sequence>(_ elements: S) -> (element: S.Element, count: Int)? where S.Element: Hashable & Comparable {
    var counts: [S.Element: Int] = [:]
    for element in elements {
        counts[element, default: 0] += 1
    }
    var best: (element: S.Element, count: Int)?
    for (element, count) in counts {
        if let current = best, count < current.count || (count == current.count && element > current.element) {
            continue
        }
        best = (element, count)
    }
    return best
}
