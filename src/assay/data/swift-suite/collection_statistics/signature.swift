extension Collection where Element: BinaryFloatingPoint {
    /// The median (average of the two middle values for an even count); nil if empty.
    func median() -> Element? {
        fatalError("TODO")
    }
}

extension Sequence where Element: BinaryInteger {
    /// The arithmetic mean as a Double, computed without integer overflow; nil if empty.
    func mean() -> Double? {
        fatalError("TODO")
    }
}
