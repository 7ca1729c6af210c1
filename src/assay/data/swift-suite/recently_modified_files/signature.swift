import Foundation

/// Names of the regular files directly inside `path` modified at or after `date`,
/// newest first (ties by name ascending). Throws if the directory cannot be listed.
func recentlyModifiedFiles(inDirectory path: String, since date: Date) throws -> [String] {
    fatalError("TODO")
}
