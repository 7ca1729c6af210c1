/// A node of a document outline. A reference type: assigning a node shares it.
final class OutlineNode {
    var title: String
    var children: [OutlineNode]

    init(title: String, children: [OutlineNode] = []) {
        self.title = title
        self.children = children
    }
}
