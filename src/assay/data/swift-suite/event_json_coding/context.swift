import Foundation
/// An event as the app models it. Uses the synthesized Codable conformance; do not change it.
struct Event: Codable, Equatable {
    var id: Int
    var title: String
    var startsAt: Date
    var attendeeCount: Int
    var isPublic: Bool
}
