import Foundation

private let tStandup = Event(id: 1, title: "Standup / daily", startsAt: Date(timeIntervalSince1970: 1_709_285_400),
                             attendeeCount: 12, isPublic: true)
private let tLaunch = Event(id: 2, title: "Launch \"v2\"", startsAt: Date(timeIntervalSince1970: 1_735_689_599),
                            attendeeCount: 0, isPublic: false)

func test_decodes_snake_case_and_iso_dates() throws {
    let json = """
    [
      {"id": 1, "title": "Standup / daily", "starts_at": "2024-03-01T09:30:00Z", "attendee_count": 12, "is_public": true},
      {"id": 2, "title": "Launch \\"v2\\"", "starts_at": "2024-12-31T23:59:59Z", "attendee_count": 0, "is_public": false}
    ]
    """
    try expectEqual(try decodeEvents(from: Data(json.utf8)), [tStandup, tLaunch])
}

func test_encodes_exact_compact_json() throws {
    let data = try encodeEvents([tStandup])
    try expectEqual(String(decoding: data, as: UTF8.self),
                    #"[{"attendee_count":12,"id":1,"is_public":true,"starts_at":"2024-03-01T09:30:00Z","title":"Standup / daily"}]"#)
    try expectEqual(String(decoding: try encodeEvents([]), as: UTF8.self), "[]")
}

func test_offsets_and_invalid_input() throws {
    let offset = #"[{"id":1,"title":"Standup / daily","starts_at":"2024-03-01T10:30:00+01:00","attendee_count":12,"is_public":true}]"#
    try expectEqual(try decodeEvents(from: Data(offset.utf8)), [tStandup])
    let badDate = #"[{"id":1,"title":"x","starts_at":"01/03/2024 09:30","attendee_count":1,"is_public":true}]"#
    try expectThrows(try decodeEvents(from: Data(badDate.utf8)))
    let missing = #"[{"id":1,"title":"x","starts_at":"2024-03-01T09:30:00Z","is_public":true}]"#
    try expectThrows(try decodeEvents(from: Data(missing.utf8)))
    try expectThrows(try decodeEvents(from: Data("[{".utf8)))
}

func test_round_trip() throws {
    let events = (0..<20).map { i in
        Event(id: i, title: "Event #\(i) — ✓", startsAt: Date(timeIntervalSince1970: 1_600_000_000 + Double(i) * 86_399),
              attendeeCount: i * 3, isPublic: i % 2 == 0)
    }
    try expectEqual(try decodeEvents(from: try encodeEvents(events)), events)
}
