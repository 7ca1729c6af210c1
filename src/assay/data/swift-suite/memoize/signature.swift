/// Returns a function with `function`'s results that calls `function` at most once per input.
func memoize<Input: Hashable, Output>(_ function: @escaping (Input) -> Output) -> (Input) -> Output {
    fatalError("TODO")
}

/// Returns a memoized recursive function: `body` gets the memoized function itself as `recurse`,
/// so `body` runs at most once per distinct input, including recursive calls.
func memoizeRecursive<Input: Hashable, Output>(
    _ body: @escaping (_ recurse: (Input) -> Output, _ input: Input) -> Output
) -> (Input) -> Output {
    fatalError("TODO")
}
