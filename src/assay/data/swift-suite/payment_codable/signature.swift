import Foundation

/// A booked payment. JSON: {"payment_id", "amount" ("12.34"), "currency" ("EUR"),
/// "booked_at_ms" (integer milliseconds since 1970), "memo" (optional, omitted when nil)}.
struct Payment: Codable, Equatable {
    var id: String
    var amountCents: Int
    var currency: String
    var bookedAt: Date
    var memo: String?

    init(id: String, amountCents: Int, currency: String, bookedAt: Date, memo: String? = nil) {
        fatalError("TODO")
    }

    init(from decoder: Decoder) throws {
        fatalError("TODO")
    }

    func encode(to encoder: Encoder) throws {
        fatalError("TODO")
    }
}
