struct DirectorySummary: Equatable {
    /// Regular files anywhere below the root.
    var fileCount: Int
    /// Directories anywhere below the root (the root itself is not counted).
    var directoryCount: Int
    /// Sum of the sizes in bytes of the regular files.
    var totalBytes: Int
    /// Path of the largest regular file relative to the root, e.g. "docs/big.txt"; nil if there are no files.
    var largestFile: String?
}

enum DirectorySummaryError: Error, Equatable {
    /// The path does not exist or is not a directory (the path exactly as given).
    case notADirectory(String)
}
