import Foundation

func parseQuantities(_ inputs: [String], allowed: ClosedRange<Int>) -> Result<[Int], QuantityError> {
    guard !inputs.isEmpty else { return .failure(.empty) }
    var values: [Int] = []
    for (index, text) in inputs.enumerated() {
        guard let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            return .failure(.notANumber(index: index, text: text))
        }
        guard allowed.contains(value) else {
            return .failure(.outOfRange(index: index, value: value))
        }
        values.append(value)
    }
    return .success(values)
}

func totalQuantity(_ inputs: [String], allowed: ClosedRange<Int>) -> Result<Int, QuantityError> {
    parseQuantities(inputs, allowed: allowed).flatMap { values in
        var total = 0
        for value in values {
            let (sum, overflow) = total.addingReportingOverflow(value)
            if overflow { return .failure(.totalOverflow) }
            total = sum
        }
        return .success(total)
    }
}
