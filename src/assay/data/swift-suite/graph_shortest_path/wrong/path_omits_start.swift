extension Graph {
    func shortestPath(from start: Node, to goal: Node) -> [Node]? {
        if start == goal { return [start] }
        var predecessor: [Node: Node] = [:]
        var visited: Set<Node> = [start]
        var queue: [Node] = [start]
        var head = 0
        while head < queue.count {
            let node = queue[head]
            head += 1
            for next in neighbors(of: node) where !visited.contains(next) {
                visited.insert(next)
                predecessor[next] = node
                if next == goal {
                    var path = [goal]
                    var current = goal
                    while let previous = predecessor[current], previous != start {
                        path.append(previous)
                        current = previous
                    }
                    return path.reversed()
                }
                queue.append(next)
            }
        }
        return nil
    }
}
