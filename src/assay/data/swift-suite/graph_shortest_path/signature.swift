extension Graph {
    /// The fewest-edges path from `start` to `goal` (both included) found by breadth-first search,
    /// exploring neighbors in `neighbors(of:)` order; `[start]` if equal; nil if unreachable.
    func shortestPath(from start: Node, to goal: Node) -> [Node]? {
        fatalError("TODO")
    }
}
