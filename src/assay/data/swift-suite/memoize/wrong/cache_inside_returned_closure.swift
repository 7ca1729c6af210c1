func memoize<Input: Hashable, Output>(_ function: @escaping (Input) -> Output) -> (Input) -> Output {
    return { input in
        var cache: [Input: Output] = [:]
        if let cached = cache[input] { return cached }
        let result = function(input)
        cache[input] = result
        return result
    }
}

func memoizeRecursive<Input: Hashable, Output>(
    _ body: @escaping (_ recurse: (Input) -> Output, _ input: Input) -> Output
) -> (Input) -> Output {
    var cache: [Input: Output] = [:]
    func memoized(_ input: Input) -> Output {
        if let cached = cache[input] { return cached }
        let result = body(memoized, input)
        cache[input] = result
        return result
    }
    return memoized
}
