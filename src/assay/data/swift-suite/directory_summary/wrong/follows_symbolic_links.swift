import Foundation

func summarizeDirectory(atPath path: String) throws -> DirectorySummary {
    let fm = FileManager.default
    var isDirectory: ObjCBool = false
    guard fm.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
        throw DirectorySummaryError.notADirectory(path)
    }
    var summary = DirectorySummary(fileCount: 0, directoryCount: 0, totalBytes: 0, largestFile: nil)
    var largestSize = -1

    func walk(_ absolute: String, _ relative: String) throws {
        for name in try fm.contentsOfDirectory(atPath: absolute) {
            let childAbsolute = absolute + "/" + name
            let childRelative = relative.isEmpty ? name : relative + "/" + name
            // attributesOfItem does not follow symbolic links (lstat).
            let attributes = try fm.attributesOfItem(atPath: (childAbsolute as NSString).resolvingSymlinksInPath)
            let type = attributes[.type] as? FileAttributeType
            if type == .typeDirectory {
                summary.directoryCount += 1
                try walk(childAbsolute, childRelative)
            } else if type == .typeRegular {
                let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
                summary.fileCount += 1
                summary.totalBytes += size
                if size > largestSize || (size == largestSize && childRelative < summary.largestFile!) {
                    largestSize = size
                    summary.largestFile = childRelative
                }
            }
        }
    }
    try walk(path, "")
    return summary
}
