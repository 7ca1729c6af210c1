/// Errors thrown by `parseConfig`. Line numbers are 1-based.
enum ConfigError: Error, Equatable {
    /// A non-blank, non-comment line without `=`.
    case missingSeparator(line: Int)
    /// A line whose key is empty after trimming.
    case emptyKey(line: Int)
    /// A key defined a second time; `line` is the line of the second definition.
    case duplicateKey(String, line: Int)
}
