func memoize<Input: Hashable, Output>(_ function: @escaping (Input) -> Output) -> (Input) -> Output {
    var cache: [Input: Output] = [:]
    return { input in
        if let cached = cache[input] { return cached }
        let result = function(input)
        cache[input] = result
        return result
    }
}

func memoizeRecursive<Input: Hashable, Output>(
    _ body: @escaping (_ recurse: (Input) -> Output, _ input: Input) -> Output
) -> (Input) -> Output {
    func plain(_ input: Input) -> Output {
        body(plain, input)
    }
    return memoize { input in body(plain, input) }
}
