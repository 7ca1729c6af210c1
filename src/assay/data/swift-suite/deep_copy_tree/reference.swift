func deepCopy(_ root: OutlineNode) -> OutlineNode {
    var copies: [ObjectIdentifier: OutlineNode] = [:]
    func copy(_ node: OutlineNode) -> OutlineNode {
        if let existing = copies[ObjectIdentifier(node)] { return existing }
        let clone = OutlineNode(title: node.title)
        copies[ObjectIdentifier(node)] = clone
        clone.children = node.children.map(copy)
        return clone
    }
    return copy(root)
}
