/// A least-recently-used cache holding at most `capacity` entries.
final class LRUCache<Key: Hashable, Value> {
    /// Creates an empty cache; a negative capacity is treated as 0.
    init(capacity: Int) {
        fatalError("TODO")
    }

    /// The maximum number of entries.
    var capacity: Int { fatalError("TODO") }

    /// The current number of entries.
    var count: Int { fatalError("TODO") }

    /// Keys from most recently used to least recently used.
    var keysByRecency: [Key] { fatalError("TODO") }

    /// Called with the key and value of each entry evicted to make room (not for removals/updates).
    var onEvict: ((Key, Value) -> Void)?

    /// The cached value, marking the key as most recently used on a hit.
    func value(forKey key: Key) -> Value? {
        fatalError("TODO")
    }

    /// Inserts or replaces a value (most recently used); evicts the least recently used entry if full.
    func setValue(_ value: Value, forKey key: Key) {
        fatalError("TODO")
    }

    /// Removes and returns the value for `key`, without calling `onEvict`.
    @discardableResult
    func removeValue(forKey key: Key) -> Value? {
        fatalError("TODO")
    }
}
