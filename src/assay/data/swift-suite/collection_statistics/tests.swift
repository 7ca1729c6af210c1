func test_median_odd_even_and_unsorted() throws {
    try expectEqual([5.0, 1.0, 3.0].median(), 3.0)
    try expectEqual([4.0, 1.0, 3.0, 2.0].median(), 2.5)
    try expectEqual([7.5].median(), 7.5)
    try expectEqual([-1.0, -1.0, 10.0, -3.0, 8.0, 2.0].median(), 0.5)
}

func test_median_other_types_and_empty() throws {
    let floats: [Float] = [1.5, 0.5, 2.5, 100]
    try expectEqual(floats.median(), Float(2.0))
    let slice = [9.0, 2.0, 4.0, 6.0, 1.0][1...3]
    try expectEqual(slice.median(), 4.0)
    try expectEqual(Set([3.0, 1.0, 2.0, 10.0]).median(), 2.5)
    try expectNil([Double]().median())
}

func test_mean_of_integers() throws {
    try expectEqual([1, 2, 3, 4].mean(), 2.5)
    try expectEqual((1...100).mean(), 50.5)
    try expectEqual([-5, 5, -10].mean(), -10.0 / 3.0)
    try expectNil([Int]().mean())
    try expectNil((0..<0).mean())
}

func test_mean_does_not_overflow() throws {
    try expectEqual([UInt8(200), 200, 250].mean(), 650.0 / 3.0)
    try expectEqual([Int.max, Int.max].mean(), Double(Int.max))
    try expectEqual([Int8(-128), -128].mean(), -128.0)
}
