extension Collection where Element: BinaryFloatingPoint {
    func median() -> Element? {
        guard !isEmpty else { return nil }
        let sorted = self.sorted()
        let mid = sorted.count / 2
        return sorted[mid]
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
