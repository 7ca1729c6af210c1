import Foundation

struct Payment: Codable, Equatable {
    var id: String
    var amountCents: Int
    var currency: String
    var bookedAt: Date
    var memo: String?

    private enum CodingKeys: String, CodingKey {
        case id = "payment_id"
        case amount
        case currency
        case bookedAtMs = "booked_at_ms"
        case memo
    }

    init(id: String, amountCents: Int, currency: String, bookedAt: Date, memo: String? = nil) {
        self.id = id
        self.amountCents = amountCents
        self.currency = currency
        self.bookedAt = bookedAt
        self.memo = memo
    }

    private static func parseAmount(_ text: String) -> Int? {
        var scalars = Substring(text).unicodeScalars[...]
        var negative = false
        if scalars.first == "-" {
            negative = true
            scalars = scalars.dropFirst()
        }
        let parts = scalars.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts[0].isEmpty else { return Int(String(scalars)).map { $0 * 100 } }
        let isDigit: (Unicode.Scalar) -> Bool = { ("0"..."9").contains($0) }
        guard parts[0].allSatisfy(isDigit), parts[1].allSatisfy(isDigit) else { return nil }
        guard let units = Int(String(parts[0])), let cents = Int(String(parts[1])) else { return nil }
        let (scaled, o1) = units.multipliedReportingOverflow(by: 100)
        let (total, o2) = scaled.addingReportingOverflow(cents)
        guard !o1, !o2 else { return nil }
        return negative ? -total : total
    }

    private static func formatAmount(_ cents: Int) -> String {
        let magnitude = cents.magnitude
        let fraction = magnitude % 100
        return (cents < 0 ? "-" : "") + "\(magnitude / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        let amountText = try c.decode(String.self, forKey: .amount)
        guard let cents = Payment.parseAmount(amountText) else {
            throw DecodingError.dataCorruptedError(forKey: .amount, in: c, debugDescription: "invalid amount \(amountText)")
        }
        amountCents = cents
        currency = try c.decode(String.self, forKey: .currency)
        guard currency.unicodeScalars.count == 3, currency.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) }) else {
            throw DecodingError.dataCorruptedError(forKey: .currency, in: c, debugDescription: "invalid currency \(currency)")
        }
        let ms = try c.decode(Int64.self, forKey: .bookedAtMs)
        bookedAt = Date(timeIntervalSince1970: Double(ms) / 1000)
        memo = try c.decodeIfPresent(String.self, forKey: .memo)
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(Payment.formatAmount(amountCents), forKey: .amount)
        try c.encode(currency, forKey: .currency)
        try c.encode(Int64((bookedAt.timeIntervalSince1970 * 1000).rounded()), forKey: .bookedAtMs)
        try c.encodeIfPresent(memo, forKey: .memo)
    }
}
