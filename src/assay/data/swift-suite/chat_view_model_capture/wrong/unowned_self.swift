final class ChatViewModel {
    var roomName: String
    private(set) var messages: [String] = []
    var onChange: ((Int) -> Void)?
    private let center: MessageCenter

    init(center: MessageCenter, roomName: String) {
        self.center = center
        self.roomName = roomName
        center.subscribe { [unowned self] message in
            self.messages.append(message)
            self.onChange?(self.messages.count)
        }
    }

    func makeSendHandler() -> (String) -> Void {
        { [center, roomName] text in
            center.post("\(roomName): \(text)")
        }
    }
}
