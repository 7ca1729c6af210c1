func test_evicts_least_recently_used() throws {
    let cache = LRUCache<String, Int>(capacity: 2)
    cache.setValue(1, forKey: "a")
    cache.setValue(2, forKey: "b")
    try expectEqual(cache.value(forKey: "a"), 1)      // "a" is now most recent
    cache.setValue(3, forKey: "c")                     // evicts "b"
    try expectNil(cache.value(forKey: "b"))
    try expectEqual(cache.value(forKey: "a"), 1)
    try expectEqual(cache.value(forKey: "c"), 3)
    try expectEqual(cache.count, 2)
    try expectEqual(cache.capacity, 2)
}

func test_replacing_refreshes_without_evicting() throws {
    let cache = LRUCache<Int, String>(capacity: 3)
    var evicted: [Int] = []
    cache.onEvict = { key, _ in evicted.append(key) }
    cache.setValue("one", forKey: 1)
    cache.setValue("two", forKey: 2)
    cache.setValue("three", forKey: 3)
    cache.setValue("uno", forKey: 1)
    try expectEqual(evicted, [])
    try expectEqual(cache.count, 3)
    try expectEqual(cache.keysByRecency, [1, 3, 2])
    cache.setValue("four", forKey: 4)
    try expectEqual(evicted, [2])
    try expectEqual(cache.value(forKey: 1), "uno")
    try expectEqual(cache.keysByRecency, [1, 4, 3])
}

func test_eviction_callback_and_removal() throws {
    let cache = LRUCache<String, Int>(capacity: 2)
    var evicted: [String] = []
    cache.onEvict = { key, value in evicted.append("\(key)=\(value)") }
    cache.setValue(1, forKey: "x")
    cache.setValue(2, forKey: "y")
    try expectEqual(cache.removeValue(forKey: "x"), 1)
    try expectNil(cache.removeValue(forKey: "x"))
    cache.setValue(3, forKey: "z")
    try expectEqual(evicted, [])
    _ = cache.value(forKey: "missing")
    cache.setValue(4, forKey: "w")
    cache.setValue(5, forKey: "v")
    try expectEqual(evicted, ["y=2", "z=3"])
    try expectEqual(cache.keysByRecency, ["v", "w"])
}

func test_zero_and_negative_capacity() throws {
    for capacity in [0, -5] {
        let cache = LRUCache<Int, Int>(capacity: capacity)
        var evictions = 0
        cache.onEvict = { _, _ in evictions += 1 }
        cache.setValue(1, forKey: 1)
        try expectNil(cache.value(forKey: 1))
        try expectEqual(cache.count, 0)
        try expectEqual(cache.capacity, 0)
        try expectEqual(evictions, 0)
        try expectEqual(cache.keysByRecency, [])
    }
}

func test_many_operations_stay_consistent() throws {
    let cache = LRUCache<Int, Int>(capacity: 100)
    for i in 0..<10_000 {
        cache.setValue(i * 2, forKey: i)
        if i % 3 == 0 { _ = cache.value(forKey: i / 2) }
    }
    try expectEqual(cache.count, 100)
    let keys = cache.keysByRecency
    try expectEqual(keys.count, 100)
    try expectEqual(Set(keys).count, 100)
    try expectEqual(keys.first, 9_999)
    for key in keys { try expectEqual(cache.value(forKey: key), key * 2) }
}
