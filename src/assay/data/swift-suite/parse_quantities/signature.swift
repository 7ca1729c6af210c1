import Foundation

/// Parses trimmed integers within `allowed`; `.failure` with the first problem (or `.empty`).
func parseQuantities(_ inputs: [String], allowed: ClosedRange<Int>) -> Result<[Int], QuantityError> {
    fatalError("TODO")
}

/// The sum of `parseQuantities(inputs, allowed:)`, or its failure, or `.totalOverflow`.
func totalQuantity(_ inputs: [String], allowed: ClosedRange<Int>) -> Result<Int, QuantityError> {
    fatalError("TODO")
}
