extension Graph {
    func shortestPath<Node: Hashable>(from start: Node, to goal: Node) -> [Node]? {
        if start == goal { return [start] }
        var predecessor: [Node: Node] = [:]
        var visited: Set<Node> = [start]
        var queue: [Node] = [start]
        while !queue.isEmpty {
            let node = queue.removeFirst()
            for next in neighbors(of: node) where !visited.contains(next) {
                visited.insert(next)
                predecessor[next] = node
                if next == goal {
                    var path = [goal]
                    while let previous = predecessor[path.last!] { path.append(previous) }
                    return path.reversed()
                }
                queue.append(next)
            }
        }
        return nil
    }
}
