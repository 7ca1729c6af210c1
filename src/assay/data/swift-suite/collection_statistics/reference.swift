extension Collection where Element: BinaryFloatingPoint {
    func median() -> Element? {
        guard !isEmpty else { return nil }
        let sorted = self.sorted()
        let mid = sorted.count / 2
        if sorted.count % 2 == 1 { return sorted[mid] }
        return (sorted[mid - 1] + sorted[mid]) / 2
    }
}

extension Sequence where Element: BinaryInteger {
    func mean() -> Double? {
        var total = 0.0
        var count = 0
        for element in self {
            total += Double(element)
            count += 1
        }
        return count == 0 ? nil : total / Double(count)
    }
}
