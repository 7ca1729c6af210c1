import Foundation

struct Payment: Codable, Equatable {
    var id: String
    var amountCents: Int
    var currency: String
    var bookedAt: Date
    var memo: String?

    private enum CodingKeys: String, CodingKey {
        case id = "payment_id"
        case amountCents = "amount"
        case currency
        case memo
    }

    init(id: String, amountCents: Int, currency: String, bookedAt: Date, memo: String? = nil) {
        self.id = id
        self.amountCents = amountCents
        self.currency = currency
        self.bookedAt = bookedAt
        self.memo = memo
    }
}
