private func tSettable<Root, Value>(_ keyPath: ReferenceWritableKeyPath<Root, Value>) -> Bool { true }
private func tSettable<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> Bool { false }

func test_receives_messages_and_reports_changes() throws {
    let center = MessageCenter()
    let vm = ChatViewModel(center: center, roomName: "general")
    var counts: [Int] = []
    vm.onChange = { counts.append($0) }
    center.post("hello")
    center.post("world")
    try expectEqual(vm.messages, ["hello", "world"])
    try expectEqual(counts, [1, 2])
    try expectEqual(center.subscriberCount, 1)
    try expect(!tSettable(\ChatViewModel.messages), "messages must be private(set)")
}

func test_view_model_is_not_kept_alive_by_the_center() throws {
    let center = MessageCenter()
    weak var weakVM: ChatViewModel?
    do {
        let vm = ChatViewModel(center: center, roomName: "temp")
        weakVM = vm
        center.post("while alive")
        try expectEqual(vm.messages, ["while alive"])
    }
    try expectNil(weakVM, "the view model must be deallocated")
    center.post("after deallocation")   // must be ignored without crashing
    try expectEqual(center.subscriberCount, 1)
}

func test_send_handler_captures_the_room_name_value() throws {
    let center = MessageCenter()
    let vm = ChatViewModel(center: center, roomName: "general")
    let send = vm.makeSendHandler()
    vm.roomName = "renamed"
    send("hi")
    try expectEqual(vm.messages, ["general: hi"])
    let sendRenamed = vm.makeSendHandler()
    sendRenamed("yo")
    try expectEqual(vm.messages, ["general: hi", "renamed: yo"])
}

func test_send_handler_does_not_retain_and_outlives_the_view_model() throws {
    let center = MessageCenter()
    var log: [String] = []
    center.subscribe { log.append($0) }
    weak var weakVM: ChatViewModel?
    var send: ((String) -> Void)?
    do {
        let vm = ChatViewModel(center: center, roomName: "ops")
        weakVM = vm
        send = vm.makeSendHandler()
    }
    try expectNil(weakVM, "the send handler must not keep the view model alive")
    send?("still works")
    try expectEqual(log, ["ops: still works"])
}
