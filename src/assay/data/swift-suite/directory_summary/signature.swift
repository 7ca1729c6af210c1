import Foundation

/// Recursively summarizes the directory at `path`: regular files (count, total bytes, largest file
/// by relative path) and subdirectories. Symbolic links are ignored and not followed.
/// Throws `DirectorySummaryError.notADirectory(path)` if `path` is not an existing directory.
func summarizeDirectory(atPath path: String) throws -> DirectorySummary {
    fatalError("TODO")
}
