import Foundation

private func tMakeTree(_ files: [String: Int], directories: [String] = []) throws -> String {
    let root = NSTemporaryDirectory() + "assay-dirsum-" + UUID().uuidString
    let fm = FileManager.default
    try fm.createDirectory(atPath: root, withIntermediateDirectories: true)
    for dir in directories {
        try fm.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true)
    }
    for (path, size) in files {
        let full = root + "/" + path
        try fm.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try expect(fm.createFile(atPath: full, contents: Data(repeating: 65, count: size)), "create \(path)")
    }
    return root
}

func test_flat_directory() throws {
    let root = try tMakeTree(["a.txt": 10, "b.txt": 300, "c.bin": 7])
    defer { try? FileManager.default.removeItem(atPath: root) }
    try expectEqual(try summarizeDirectory(atPath: root),
                    DirectorySummary(fileCount: 3, directoryCount: 0, totalBytes: 317, largestFile: "b.txt"))
}

func test_nested_hidden_and_empty_directories() throws {
    let root = try tMakeTree(["top.txt": 5, "sub/.hidden": 50, "sub/deeper/big.bin": 4096, "sub/deeper/small": 1],
                             directories: ["empty", "sub/deeper/emptier"])
    defer { try? FileManager.default.removeItem(atPath: root) }
    try expectEqual(try summarizeDirectory(atPath: root),
                    DirectorySummary(fileCount: 4, directoryCount: 4, totalBytes: 4152, largestFile: "sub/deeper/big.bin"))
}

func test_ties_and_empty_tree() throws {
    let root = try tMakeTree(["m/x": 20, "b": 20, "a/z": 20, "c": 3])
    defer { try? FileManager.default.removeItem(atPath: root) }
    try expectEqual(try summarizeDirectory(atPath: root).largestFile, "a/z")
    let empty = try tMakeTree([:], directories: ["only/dirs"])
    defer { try? FileManager.default.removeItem(atPath: empty) }
    try expectEqual(try summarizeDirectory(atPath: empty),
                    DirectorySummary(fileCount: 0, directoryCount: 2, totalBytes: 0, largestFile: nil))
}

func test_symbolic_links_are_ignored() throws {
    let target = try tMakeTree(["huge.bin": 100_000, "inner/f": 9])
    defer { try? FileManager.default.removeItem(atPath: target) }
    let root = try tMakeTree(["real.txt": 12])
    defer { try? FileManager.default.removeItem(atPath: root) }
    let fm = FileManager.default
    try fm.createSymbolicLink(atPath: root + "/file-link", withDestinationPath: target + "/huge.bin")
    try fm.createSymbolicLink(atPath: root + "/dir-link", withDestinationPath: target)
    try expectEqual(try summarizeDirectory(atPath: root),
                    DirectorySummary(fileCount: 1, directoryCount: 0, totalBytes: 12, largestFile: "real.txt"))
}

func test_not_a_directory() throws {
    let root = try tMakeTree(["file.txt": 1])
    defer { try? FileManager.default.removeItem(atPath: root) }
    try expectThrows(try summarizeDirectory(atPath: root + "/file.txt"),
                     DirectorySummaryError.notADirectory(root + "/file.txt"))
    try expectThrows(try summarizeDirectory(atPath: root + "/missing"),
                     DirectorySummaryError.notADirectory(root + "/missing"))
}
