import Foundation

private let tBase = Date(timeIntervalSince1970: 1_700_000_000)

private func tMakeDirectory(_ files: [String: Double]) throws -> String {
    let root = NSTemporaryDirectory() + "assay-recent-" + UUID().uuidString
    let fm = FileManager.default
    try fm.createDirectory(atPath: root, withIntermediateDirectories: true)
    for (name, offset) in files {
        let path = root + "/" + name
        try expect(fm.createFile(atPath: path, contents: Data(name.utf8)), "create \(name)")
        try fm.setAttributes([.modificationDate: tBase.addingTimeInterval(offset)], ofItemAtPath: path)
    }
    return root
}

func test_filters_and_orders_newest_first() throws {
    let root = try tMakeDirectory(["old.log": -3600, "new.log": 120, "newer.log": 600, "mid.log": 5])
    defer { try? FileManager.default.removeItem(atPath: root) }
    try expectEqual(try recentlyModifiedFiles(inDirectory: root, since: tBase), ["newer.log", "new.log", "mid.log"])
    try expectEqual(try recentlyModifiedFiles(inDirectory: root, since: tBase.addingTimeInterval(10_000)), [])
}

func test_exact_date_is_included_and_ties_sort_by_name() throws {
    let root = try tMakeDirectory(["b.txt": 0, "a.txt": 0, "c.txt": 0.5, "z.txt": -0.25])
    defer { try? FileManager.default.removeItem(atPath: root) }
    try expectEqual(try recentlyModifiedFiles(inDirectory: root, since: tBase), ["c.txt", "a.txt", "b.txt"])
}

func test_directories_links_and_nested_files_are_skipped() throws {
    let root = try tMakeDirectory(["keep.txt": 30])
    defer { try? FileManager.default.removeItem(atPath: root) }
    let fm = FileManager.default
    try fm.createDirectory(atPath: root + "/folder", withIntermediateDirectories: true)
    try expect(fm.createFile(atPath: root + "/folder/inner.txt", contents: Data("x".utf8)))
    try fm.setAttributes([.modificationDate: tBase.addingTimeInterval(60)], ofItemAtPath: root + "/folder/inner.txt")
    try fm.setAttributes([.modificationDate: tBase.addingTimeInterval(90)], ofItemAtPath: root + "/folder")
    try fm.createSymbolicLink(atPath: root + "/link.txt", withDestinationPath: root + "/keep.txt")
    try expectEqual(try recentlyModifiedFiles(inDirectory: root, since: tBase), ["keep.txt"])
}

func test_missing_directory_throws() throws {
    let missing = NSTemporaryDirectory() + "assay-recent-missing-" + UUID().uuidString
    try expectThrows(try recentlyModifiedFiles(inDirectory: missing, since: tBase))
}
