extension Graph {
    func shortestPath(from start: Node, to goal: Node) -> [Node]? {
        var visited: Set<Node> = []
        func dfs(_ node: Node, _ path: [Node]) -> [Node]? {
            if node == goal { return path }
            visited.insert(node)
            for next in neighbors(of: node) where !visited.contains(next) {
                if let found = dfs(next, path + [next]) { return found }
            }
            return nil
        }
        return dfs(start, [start])
    }
}
