final class LRUCache<Key: Hashable, Value> {
    private final class Node {
        let key: Key
        var value: Value
        var newer: Node?
        weak var older: Node?
        init(key: Key, value: Value) {
            self.key = key
            self.value = value
        }
    }

    let capacity: Int
    var onEvict: ((Key, Value) -> Void)?
    private var nodes: [Key: Node] = [:]
    /// Most recently used.
    private var head: Node?
    /// Least recently used.
    private var tail: Node?

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    var count: Int { nodes.count }

    var keysByRecency: [Key] {
        var keys: [Key] = []
        var node = head
        while let n = node {
            keys.append(n.key)
            node = n.older
        }
        return keys
    }

    // The list is linked through `older` (head -> tail) and `newer` (tail -> head).
    // `newer` links are strong, `older` links weak, so the chain is owned from the tail.
    private func unlink(_ node: Node) {
        let older = node.older
        let newer = node.newer
        older?.newer = newer
        newer?.older = older
        if head === node { head = older }
        if tail === node { tail = newer }
        node.older = nil
        node.newer = nil
    }

    private func pushFront(_ node: Node) {
        node.older = head
        node.newer = nil
        head?.newer = node
        head = node
        if tail == nil { tail = node }
    }

    func value(forKey key: Key) -> Value? {
        return nodes[key]?.value
    }

    func setValue(_ value: Value, forKey key: Key) {
        if let node = nodes[key] {
            node.value = value
            unlink(node)
            pushFront(node)
            return
        }
        guard capacity > 0 else { return }
        if nodes.count >= capacity, let lru = tail {
            unlink(lru)
            nodes[lru.key] = nil
            onEvict?(lru.key, lru.value)
        }
        let node = Node(key: key, value: value)
        nodes[key] = node
        pushFront(node)
    }

    @discardableResult
    func removeValue(forKey key: Key) -> Value? {
        guard let node = nodes.removeValue(forKey: key) else { return nil }
        unlink(node)
        return node.value
    }
}
