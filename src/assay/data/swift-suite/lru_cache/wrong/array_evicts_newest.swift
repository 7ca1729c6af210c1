final class LRUCache<Key: Hashable, Value> {
    let capacity: Int
    var onEvict: ((Key, Value) -> Void)?
    private var storage: [Key: Value] = [:]
    private var order: [Key] = []   // most recent first

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var count: Int { storage.count }
    var keysByRecency: [Key] { order }

    private func touch(_ key: Key) {
        order.removeAll { $0 == key }
        order.insert(key, at: 0)
    }

    func value(forKey key: Key) -> Value? {
        guard let value = storage[key] else { return nil }
        touch(key)
        return value
    }

    func setValue(_ value: Value, forKey key: Key) {
        guard capacity > 0 else { return }
        if storage[key] == nil && storage.count >= capacity, let victim = order.first {
            order.removeFirst()
            let old = storage.removeValue(forKey: victim)!
            onEvict?(victim, old)
        }
        storage[key] = value
        touch(key)
    }

    @discardableResult
    func removeValue(forKey key: Key) -> Value? {
        order.removeAll { $0 == key }
        return storage.removeValue(forKey: key)
    }
}
