/// Renders `value` as compact JSON with sorted object keys, integral numbers without a fraction,
/// non-finite numbers as null, and minimal string escaping.
func renderJSON(_ value: JSONValue) -> String {
    fatalError("TODO")
}
