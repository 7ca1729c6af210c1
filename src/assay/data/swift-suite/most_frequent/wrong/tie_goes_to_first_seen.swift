func mostFrequent<S: Sequence>(_ elements: S) -> (element: S.Element, count: Int)? where S.Element: Hashable & Comparable {
    var counts: [S.Element: Int] = [:]
    var order: [S.Element] = []
    for element in elements {
        if counts[element] == nil { order.append(element) }
        counts[element, default: 0] += 1
    }
    var best: (element: S.Element, count: Int)?
    for element in order {
        let count = counts[element]!
        if best == nil || count > best!.count {
            best = (element, count)
        }
    }
    return best
}
