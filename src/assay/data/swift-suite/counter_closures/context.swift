/// Closures that operate on one counter.
struct CounterHandles {
    /// Adds `step` to the counter and returns the new value.
    let increment: () -> Int
    /// Returns the current value without changing it.
    let current: () -> Int
    /// Sets the counter back to `start`.
    let reset: () -> Void
    /// Returns a closure that always returns the value the counter had when `snapshot()` was called.
    let snapshot: () -> () -> Int
}
