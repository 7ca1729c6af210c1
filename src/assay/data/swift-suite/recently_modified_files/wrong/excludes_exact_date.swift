import Foundation

func recentlyModifiedFiles(inDirectory path: String, since date: Date) throws -> [String] {
    let fm = FileManager.default
    var matches: [(name: String, modified: Date)] = []
    for name in try fm.contentsOfDirectory(atPath: path) {
        let attributes = try fm.attributesOfItem(atPath: (path as NSString).appendingPathComponent(name))
        guard attributes[.type] as? FileAttributeType == .typeRegular,
              let modified = attributes[.modificationDate] as? Date,
              modified > date else { continue }
        matches.append((name, modified))
    }
    matches.sort { a, b in a.modified != b.modified ? a.modified > b.modified : a.name < b.name }
    return matches.map(\.name)
}
