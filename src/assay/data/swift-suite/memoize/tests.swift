private final class TCallLog {
    var calls: [Int] = []
}

func test_memoize_calls_once_per_input() throws {
    let log = TCallLog()
    let square = memoize { (x: Int) -> Int in
        log.calls.append(x)
        return x * x
    }
    try expectEqual(square(4), 16)
    try expectEqual(square(4), 16)
    try expectEqual(square(-3), 9)
    try expectEqual(square(4), 16)
    try expectEqual(log.calls, [4, -3])
}

func test_each_memoize_has_its_own_cache() throws {
    let log = TCallLog()
    let f = memoize { (s: String) -> Int in log.calls.append(s.count); return s.count }
    let g = memoize { (s: String) -> Int in log.calls.append(-s.count); return -s.count }
    try expectEqual(f("abc"), 3)
    try expectEqual(g("abc"), -3)
    try expectEqual(f("abc"), 3)
    try expectEqual(log.calls, [3, -3])
}

func test_recursive_fibonacci_body_runs_once_per_input() throws {
    let log = TCallLog()
    let fib = memoizeRecursive { (recurse: (Int) -> Int, n: Int) -> Int in
        log.calls.append(n)
        return n < 2 ? n : recurse(n - 1) + recurse(n - 2)
    }
    try expectEqual(fib(25), 75_025)
    try expectEqual(log.calls.count, 26)
    try expectEqual(Set(log.calls), Set(0...25))
    try expectEqual(fib(26), 121_393)
    try expectEqual(log.calls.count, 27)
    try expectEqual(fib(90), 2_880_067_194_370_816_120)
}

func test_recursive_with_struct_input() throws {
    struct Cell: Hashable { let row: Int; let col: Int }
    let log = TCallLog()
    // number of monotone lattice paths to (row, col)
    let paths = memoizeRecursive { (recurse: (Cell) -> Int, c: Cell) -> Int in
        log.calls.append(c.row * 100 + c.col)
        if c.row == 0 || c.col == 0 { return 1 }
        return recurse(Cell(row: c.row - 1, col: c.col)) + recurse(Cell(row: c.row, col: c.col - 1))
    }
    try expectEqual(paths(Cell(row: 12, col: 12)), 2_704_156)
    try expectEqual(log.calls.count, 13 * 13 - 1)
}
