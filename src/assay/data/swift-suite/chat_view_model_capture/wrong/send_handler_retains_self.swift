final class ChatViewModel {
    var roomName: String
    private(set) var messages: [String] = []
    var onChange: ((Int) -> Void)?
    private let center: MessageCenter

    init(center: MessageCenter, roomName: String) {
        self.center = center
        self.roomName = roomName
        center.subscribe { [weak self] message in
            guard let self else { return }
            self.messages.append(message)
            self.onChange?(self.messages.count)
        }
    }

    func makeSendHandler() -> (String) -> Void {
        let name = roomName
        return { text in
            self.center.post("\(name): \(text)")
        }
    }
}
