import Foundation

private func tDecode(_ json: String) throws -> Payment {
    try JSONDecoder().decode(Payment.self, from: Data(json.utf8))
}

private func tEncode(_ payment: Payment) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(payment), as: UTF8.self)
}

func test_decodes_custom_keys_amounts_and_dates() throws {
    let p = try tDecode(#"{"payment_id":"p-1","amount":"12.34","currency":"EUR","booked_at_ms":1700000000123,"memo":"rent"}"#)
    try expectEqual(p, Payment(id: "p-1", amountCents: 1234, currency: "EUR",
                               bookedAt: Date(timeIntervalSince1970: 1_700_000_000.123), memo: "rent"))
    let small = try tDecode(#"{"payment_id":"p-2","amount":"0.29","currency":"USD","booked_at_ms":0}"#)
    try expectEqual(small.amountCents, 29)
    try expectNil(small.memo)
    let negative = try tDecode(#"{"payment_id":"p-3","amount":"-2.50","currency":"GBP","booked_at_ms":-1000,"memo":null}"#)
    try expectEqual(negative.amountCents, -250)
    try expectEqual(negative.bookedAt, Date(timeIntervalSince1970: -1))
    try expectNil(negative.memo)
}

func test_encodes_exact_json() throws {
    let p = Payment(id: "p-9", amountCents: 5, currency: "CHF", bookedAt: Date(timeIntervalSince1970: 1_700_000_000.5))
    try expectEqual(try tEncode(p), #"{"amount":"0.05","booked_at_ms":1700000000500,"currency":"CHF","payment_id":"p-9"}"#)
    let q = Payment(id: "q", amountCents: -123_456, currency: "JPY", bookedAt: Date(timeIntervalSince1970: 0), memo: "refund")
    try expectEqual(try tEncode(q), #"{"amount":"-1234.56","booked_at_ms":0,"currency":"JPY","memo":"refund","payment_id":"q"}"#)
    try expectEqual(try tEncode(Payment(id: "z", amountCents: 0, currency: "EUR", bookedAt: Date(timeIntervalSince1970: 1))),
                    #"{"amount":"0.00","booked_at_ms":1000,"currency":"EUR","payment_id":"z"}"#)
}

func test_invalid_amounts_and_currencies_are_data_corrupted() throws {
    func isDataCorrupted(_ error: any Error) -> Bool {
        if case DecodingError.dataCorrupted = error { return true }
        return false
    }
    for amount in ["12.3", "12", "1,00", "+1.00", "1.005", ".50", "-", "", "1.0a", "١.٢٣"] {
        let json = #"{"payment_id":"x","amount":"\#(amount)","currency":"EUR","booked_at_ms":1}"#
        try expectThrows(try tDecode(json), matching: isDataCorrupted, "amount \(amount)")
    }
    for currency in ["eur", "EURO", "E1R", "", "ÉUR"] {
        let json = #"{"payment_id":"x","amount":"1.00","currency":"\#(currency)","booked_at_ms":1}"#
        try expectThrows(try tDecode(json), matching: isDataCorrupted, "currency \(currency)")
    }
    try expectThrows(try tDecode(#"{"payment_id":"x","currency":"EUR","booked_at_ms":1}"#), matching: { $0 is DecodingError })
}

func test_round_trip() throws {
    let payments = [
        Payment(id: "a", amountCents: 1, currency: "EUR", bookedAt: Date(timeIntervalSince1970: 1_600_000_000.001), memo: "x"),
        Payment(id: "b", amountCents: 99_999_999, currency: "USD", bookedAt: Date(timeIntervalSince1970: 1_650_000_000)),
    ]
    let data = try JSONEncoder().encode(payments)
    let back = try JSONDecoder().decode([Payment].self, from: data)
    try expectEqual(back.map(\.id), ["a", "b"])
    try expectEqual(back.map(\.amountCents), [1, 99_999_999])
    try expectEqual(back.map(\.memo), ["x", nil])
    try expectApproxEqual(back[0].bookedAt.timeIntervalSince1970, 1_600_000_000.001, tolerance: 1e-6)
}
