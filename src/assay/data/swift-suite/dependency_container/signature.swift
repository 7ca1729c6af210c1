/// A dependency-injection container: register factories per type, resolve instances.
final class DIContainer {
    init() {
        fatalError("TODO")
    }

    /// Registers (or replaces) the factory for `type`.
    func register<Service>(_ type: Service.Type, lifetime: Lifetime = .transient,
                           factory: @escaping (DIContainer) throws -> Service) {
        fatalError("TODO")
    }

    /// Builds or returns the instance for `type`; throws `ResolutionError` when it is not registered
    /// or depends on itself.
    func resolve<Service>(_ type: Service.Type) throws -> Service {
        fatalError("TODO")
    }
}
