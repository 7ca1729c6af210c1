private struct CounterState {
    var value: Int
}

func makeCounter(start: Int, step: Int) -> CounterHandles {
    let state = CounterState(value: start)
    var forIncrement = state
    var forReset = state
    let forCurrent = state
    return CounterHandles(
        increment: {
            forIncrement.value += step
            return forIncrement.value
        },
        current: { [forCurrent] in forCurrent.value },
        reset: { forReset.value = start },
        snapshot: {
            { [value = forIncrement.value] in value }
        }
    )
}
