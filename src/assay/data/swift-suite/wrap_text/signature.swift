/// Greedily wraps the words of `text` into lines of at most `width` (>= 1) `Character`s,
/// splitting words longer than `width`. Returns [] if there are no words.
func wrapText(_ text: String, width: Int) -> [String] {
    fatalError("TODO")
}
