enum QuantityError: Error, Equatable {
    /// The input list was empty.
    case empty
    /// `text` (exactly as given) at `index` is not an integer.
    case notANumber(index: Int, text: String)
    /// The integer at `index` is outside the allowed range.
    case outOfRange(index: Int, value: Int)
    /// The sum does not fit in an `Int`.
    case totalOverflow
}
