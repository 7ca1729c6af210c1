/// A directed graph. Conforming types decide what a node is.
protocol Graph {
    associatedtype Node: Hashable
    /// The nodes reachable from `node` by one edge, in a fixed order.
    func neighbors(of node: Node) -> [Node]
}
