/// Merges two ascending sequences into one ascending array. Stable: among equal elements,
/// those from `a` come first, and each input keeps its own order.
func mergeSorted<A: Sequence, B: Sequence>(_ a: A, _ b: B) -> [A.Element] where A.Element == B.Element, A.Element: Comparable {
    fatalError("TODO")
}
