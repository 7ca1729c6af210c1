private struct TAudioSettings {
    @Clamped(0...10) var volume: Int = 5
    @Clamped(0.5...2.0) var speed: Double = 1.0
}

private struct TLoud {
    @Clamped(0...10) var volume: Int = 42
    @Clamped("b"..."y") var letter: String = "a"
}

func test_assignments_are_clamped() throws {
    var settings = TAudioSettings()
    try expectEqual(settings.volume, 5)
    settings.volume = 11
    try expectEqual(settings.volume, 10)
    settings.volume = -3
    try expectEqual(settings.volume, 0)
    settings.volume = 7
    try expectEqual(settings.volume, 7)
    settings.speed = 3.5
    try expectEqual(settings.speed, 2.0)
    settings.speed = 0.25
    try expectEqual(settings.speed, 0.5)
}

func test_initial_value_is_clamped() throws {
    let loud = TLoud()
    try expectEqual(loud.volume, 10)
    try expectEqual(loud.letter, "b")
    try expect(loud.$volume, "initial value was clamped")
}

func test_projected_value_tracks_the_last_assignment() throws {
    var settings = TAudioSettings()
    try expect(!settings.$volume)
    settings.volume = 100
    try expect(settings.$volume)
    settings.volume = 10
    try expect(!settings.$volume, "in-range assignment resets the flag")
    settings.volume = 0
    try expect(!settings.$volume, "bounds are in range")
    var loud = TLoud()
    loud.volume = 3
    try expect(!loud.$volume)
}

func test_value_semantics() throws {
    var a = TAudioSettings()
    a.volume = 8
    var b = a
    b.volume = 2
    try expectEqual(a.volume, 8)
    try expectEqual(b.volume, 2)
    b.speed = 9
    try expect(b.$speed)
    try expect(!a.$speed)
}
