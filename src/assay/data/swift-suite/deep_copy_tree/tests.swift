private func tAllNodes(_ root: OutlineNode) -> [OutlineNode] {
    [root] + root.children.flatMap(tAllNodes)
}

private func tTitles(_ node: OutlineNode) -> String {
    node.children.isEmpty ? node.title : node.title + "(" + node.children.map(tTitles).joined(separator: ",") + ")"
}

func test_same_structure_all_new_instances() throws {
    let root = OutlineNode(title: "Book", children: [
        OutlineNode(title: "Intro"),
        OutlineNode(title: "Part 1", children: [OutlineNode(title: "Ch 1"), OutlineNode(title: "Ch 2")]),
    ])
    let copy = deepCopy(root)
    try expectEqual(tTitles(copy), "Book(Intro,Part 1(Ch 1,Ch 2))")
    let originals = tAllNodes(root)
    for node in tAllNodes(copy) {
        try expect(!originals.contains { $0 === node }, "node \(node.title) of the copy is an original node")
    }
}

func test_mutating_the_copy_leaves_the_original_alone() throws {
    let root = OutlineNode(title: "Root", children: [OutlineNode(title: "A", children: [OutlineNode(title: "A1")])])
    let copy = deepCopy(root)
    copy.children[0].title = "changed"
    copy.children[0].children.append(OutlineNode(title: "A2"))
    copy.children.append(OutlineNode(title: "B"))
    try expectEqual(tTitles(root), "Root(A(A1))")
    root.children[0].children[0].title = "orig"
    try expectEqual(tTitles(copy), "Root(changed(A1,A2),B)")
}

func test_shared_nodes_stay_shared() throws {
    let shared = OutlineNode(title: "Glossary", children: [OutlineNode(title: "Terms")])
    let root = OutlineNode(title: "Docs", children: [
        OutlineNode(title: "Guide", children: [shared]),
        OutlineNode(title: "Reference", children: [shared, OutlineNode(title: "API")]),
        shared,
    ])
    let copy = deepCopy(root)
    let g = copy.children[0].children[0]
    try expect(g === copy.children[1].children[0], "shared node copied once")
    try expect(g === copy.children[2], "shared node copied once")
    try expect(g !== shared, "shared node is a new instance")
    try expect(copy.children[0] !== copy.children[1], "distinct nodes stay distinct")
    g.title = "Glossary v2"
    try expectEqual(shared.title, "Glossary")
    try expectEqual(tTitles(copy), "Docs(Guide(Glossary v2(Terms)),Reference(Glossary v2(Terms),API),Glossary v2(Terms))")
}

func test_single_node() throws {
    let leaf = OutlineNode(title: "Leaf")
    let copy = deepCopy(leaf)
    try expect(copy !== leaf)
    try expectEqual(copy.title, "Leaf")
    try expect(copy.children.isEmpty)
}
