/// Parses `key = value` lines into a dictionary.
/// Blank lines and `#` comments are ignored; malformed lines throw a `ConfigError`
/// carrying the 1-based line number.
func parseConfig(_ text: String) throws -> [String: String] {
    fatalError("TODO")
}
