private struct TCity: Graph {
    let roads: [String: [String]]
    func neighbors(of node: String) -> [String] { roads[node] ?? [] }
}

private struct TCell: Hashable { let x: Int; let y: Int }

/// An unbounded grid: moves right, down, left, up, except into walls.
private struct TGrid: Graph {
    let walls: Set<TCell>
    func neighbors(of c: TCell) -> [TCell] {
        [TCell(x: c.x + 1, y: c.y), TCell(x: c.x, y: c.y + 1), TCell(x: c.x - 1, y: c.y), TCell(x: c.x, y: c.y - 1)]
            .filter { !walls.contains($0) }
    }
}

private let tMap = TCity(roads: [
    "A": ["B", "C"],
    "B": ["D", "A"],
    "C": ["E"],
    "D": ["F"],
    "E": ["D", "F"],
    "F": ["F"],
    "G": ["A"],
])

func test_shortest_path_in_a_graph_with_cycles() throws {
    try expectEqual(tMap.shortestPath(from: "A", to: "F"), ["A", "B", "D", "F"])
    try expectEqual(tMap.shortestPath(from: "C", to: "F"), ["C", "E", "F"])
    try expectEqual(tMap.shortestPath(from: "G", to: "E"), ["G", "A", "C", "E"])
}

func test_trivial_and_unreachable() throws {
    try expectEqual(tMap.shortestPath(from: "D", to: "D"), ["D"])
    try expectNil(tMap.shortestPath(from: "F", to: "A"))
    try expectNil(tMap.shortestPath(from: "A", to: "G"))
    try expectNil(tMap.shortestPath(from: "Z", to: "A"))
}

func test_unbounded_grid_with_walls() throws {
    let walls: Set<TCell> = [TCell(x: 1, y: 0), TCell(x: 1, y: 1), TCell(x: 1, y: -1)]
    let grid = TGrid(walls: walls)
    let path = try expectNotNil(grid.shortestPath(from: TCell(x: 0, y: 0), to: TCell(x: 2, y: 0)))
    try expectEqual(path.count, 7)
    try expectEqual(path.first, TCell(x: 0, y: 0))
    try expectEqual(path.last, TCell(x: 2, y: 0))
    try expectEqual(path, [TCell(x: 0, y: 0), TCell(x: 0, y: 1), TCell(x: 0, y: 2), TCell(x: 1, y: 2),
                           TCell(x: 2, y: 2), TCell(x: 2, y: 1), TCell(x: 2, y: 0)])
}

func test_neighbor_order_decides_ties() throws {
    let diamond = TCity(roads: ["S": ["Y", "X"], "X": ["T"], "Y": ["T"]])
    try expectEqual(diamond.shortestPath(from: "S", to: "T"), ["S", "Y", "T"])
    let grid = TGrid(walls: [])
    try expectEqual(grid.shortestPath(from: TCell(x: 0, y: 0), to: TCell(x: 1, y: 1)),
                    [TCell(x: 0, y: 0), TCell(x: 1, y: 0), TCell(x: 1, y: 1)])
}
