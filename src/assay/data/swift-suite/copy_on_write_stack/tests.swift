func test_lifo_behaviour() throws {
    var stack = CowStack<String>()
    try expect(stack.isEmpty)
    try expectNil(stack.pop())
    stack.push("a")
    stack.push("b")
    stack.push("c")
    try expectEqual(stack.count, 3)
    try expectEqual(stack.top, "c")
    try expectEqual(stack.elements, ["a", "b", "c"])
    try expectEqual(stack.pop(), "c")
    try expectEqual(stack.pop(), "b")
    try expectEqual(stack.elements, ["a"])
    try expect(!stack.isEmpty)
}

func test_copies_share_until_mutation() throws {
    var a = CowStack<Int>()
    a.push(1)
    a.push(2)
    let shared = a.storageID
    var b = a
    try expectEqual(b.storageID, shared)
    b.push(3)
    try expect(b.storageID != shared, "mutating a shared buffer must copy it")
    try expectEqual(a.storageID, shared)
    try expectEqual(a.elements, [1, 2])
    try expectEqual(b.elements, [1, 2, 3])
}

func test_pop_on_a_copy_leaves_the_original() throws {
    var a = CowStack<Int>()
    for i in 1...4 { a.push(i) }
    var b = a
    try expectEqual(b.pop(), 4)
    try expectEqual(b.pop(), 3)
    try expectEqual(a.elements, [1, 2, 3, 4])
    try expectEqual(b.elements, [1, 2])
    var empty = CowStack<Int>()
    let emptyCopy = empty
    try expectNil(empty.pop())
    try expectEqual(empty.storageID, emptyCopy.storageID)
}

func test_unique_buffer_is_mutated_in_place() throws {
    var stack = CowStack<Int>()
    var id = stack.storageID
    stack.push(1)
    try expectEqual(stack.storageID, id, "push on a unique buffer must not copy")
    id = stack.storageID
    stack.push(2)
    try expectEqual(stack.storageID, id, "push on a unique buffer must not copy")
    id = stack.storageID
    _ = stack.pop()
    try expectEqual(stack.storageID, id, "pop on a unique buffer must not copy")
    id = stack.storageID
    _ = stack.top
    _ = stack.elements
    try expectEqual(stack.storageID, id)
}

func test_copy_released_makes_buffer_unique_again() throws {
    var a = CowStack<Int>()
    a.push(7)
    do {
        let b = a
        try expectEqual(b.count, 1)
    }
    let id = a.storageID
    a.push(8)
    try expectEqual(a.storageID, id, "no other copy is alive, so no copy is needed")
    try expectEqual(a.elements, [7, 8])
}
