func makeCounter(start: Int, step: Int) -> CounterHandles {
    var value = start
    return CounterHandles(
        increment: {
            value += step
            return value
        },
        current: { value },
        reset: { value = 0 },
        snapshot: {
            { [value] in value }
        }
    )
}
