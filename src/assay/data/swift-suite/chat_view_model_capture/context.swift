/// A broadcaster that keeps strong references to the handlers subscribed to it, forever.
final class MessageCenter {
    private var handlers: [(String) -> Void] = []

    func subscribe(_ handler: @escaping (String) -> Void) {
        handlers.append(handler)
    }

    func post(_ message: String) {
        for handler in handlers {
            handler(message)
        }
    }

    var subscriberCount: Int { handlers.count }
}
