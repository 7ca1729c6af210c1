/// The most frequent element of `elements` and its count; ties go to the smallest element;
/// nil if `elements` is empty. Iterates the sequence once.
func mostFrequent<S: Sequence>(_ elements: S) -> (element: S.Element, count: Int)? where S.Element: Hashable & Comparable {
    fatalError("TODO")
}
