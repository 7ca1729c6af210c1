func deepCopy(_ root: OutlineNode) -> OutlineNode {
    OutlineNode(title: root.title, children: root.children.map(deepCopy))
}
