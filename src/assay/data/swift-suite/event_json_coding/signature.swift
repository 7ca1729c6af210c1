import Foundation

/// Decodes a JSON array of events with snake_case keys and ISO 8601 dates.
func decodeEvents(from data: Data) throws -> [Event] {
    fatalError("TODO")
}

/// Encodes events as compact JSON with sorted snake_case keys, ISO 8601 UTC dates and unescaped slashes.
func encodeEvents(_ events: [Event]) throws -> Data {
    fatalError("TODO")
}
