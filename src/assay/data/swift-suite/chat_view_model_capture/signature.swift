/// A chat screen's model: collects messages posted to a `MessageCenter` without being kept alive by it.
final class ChatViewModel {
    var roomName: String
    /// Received messages, oldest first; settable only inside the class.
    private(set) var messages: [String] = []
    /// Called with the new message count after each received message.
    var onChange: ((Int) -> Void)?

    /// Subscribes one handler to `center` that captures the view model weakly.
    init(center: MessageCenter, roomName: String) {
        fatalError("TODO")
    }

    /// A closure posting "<room>: <text>" to the center, with the room name captured now.
    func makeSendHandler() -> (String) -> Void {
        fatalError("TODO")
    }
}
