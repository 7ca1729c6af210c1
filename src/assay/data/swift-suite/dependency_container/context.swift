enum Lifetime {
    /// A new instance for every resolution.
    case transient
    /// One instance, created on first resolution and reused afterwards.
    case singleton
}

enum ResolutionError: Error, Equatable {
    /// No factory registered for the type; the payload is `String(describing: Service.self)`.
    case notRegistered(String)
    /// The type was requested again while it was being constructed; `String(describing: Service.self)`.
    case circularDependency(String)
}
