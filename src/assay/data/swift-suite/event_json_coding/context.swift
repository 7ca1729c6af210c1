import Foundation

struct Event: Codable, Equatable {
    var id: Int
    var title: String
    var startsAt: Date
    var attendeeCount: Int
    var isPublic: Bool
}
