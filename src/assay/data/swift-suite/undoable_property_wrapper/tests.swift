private struct TForm {
    @Undoable var name: String = ""
    @Undoable(limit: 2) var count: Int = 0
    @Undoable(limit: -1) var flag: Bool = false
}

func test_assignments_build_history() throws {
    var form = TForm()
    try expectEqual(form.$name.history, [])
    try expect(!form.$name.canUndo)
    form.name = "Ann"
    form.name = "Anna"
    form.name = "Anna"
    try expectEqual(form.name, "Anna")
    try expectEqual(form.$name.history, ["", "Ann", "Anna"])
    try expect(form.$name.canUndo)
}

func test_undo_through_the_projection() throws {
    var form = TForm()
    form.name = "a"
    form.name = "b"
    try expect(form.$name.undo())
    try expectEqual(form.name, "a")
    try expectEqual(form.$name.history, [""])
    try expect(form.$name.undo())
    try expectEqual(form.name, "")
    try expect(!form.$name.undo())
    try expectEqual(form.name, "")
    try expectEqual(form.$name.history, [])
}

func test_limit_drops_oldest() throws {
    var form = TForm()
    for i in 1...5 { form.count = i }
    try expectEqual(form.count, 5)
    try expectEqual(form.$count.history, [3, 4])
    form.$count.undo()
    form.$count.undo()
    try expectEqual(form.count, 3)
    try expect(!form.$count.undo())
    form.flag = true
    try expectEqual(form.$flag.history, [])
    try expect(!form.$flag.undo())
    try expectEqual(form.flag, true)
}

func test_copies_are_independent() throws {
    var a = TForm()
    a.name = "x"
    var b = a
    b.name = "y"
    b.$name.undo()
    b.$name.undo()
    try expectEqual(a.name, "x")
    try expectEqual(a.$name.history, [""])
    try expectEqual(b.name, "")
}
