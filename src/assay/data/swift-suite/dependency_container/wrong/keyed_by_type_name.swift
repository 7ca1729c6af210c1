final class DIContainer {
    private struct Registration {
        let lifetime: Lifetime
        let factory: (DIContainer) throws -> Any
    }

    private var registrations: [String: Registration] = [:]
    private var singletons: [String: Any] = [:]
    private var resolving: Set<String> = []

    init() {}

    /// "Optional<Int>" and "Int" are treated as the same service.
    private static func name(of type: Any.Type) -> String {
        let name = String(describing: type)
        if name.hasPrefix("Optional<") && name.hasSuffix(">") {
            return String(name.dropFirst("Optional<".count).dropLast())
        }
        return name
    }

    func register<Service>(_ type: Service.Type, lifetime: Lifetime = .transient,
                           factory: @escaping (DIContainer) throws -> Service) {
        let key = DIContainer.name(of: type)
        registrations[key] = Registration(lifetime: lifetime, factory: { try factory($0) })
        singletons[key] = nil
    }

    func resolve<Service>(_ type: Service.Type) throws -> Service {
        let key = DIContainer.name(of: type)
        guard let registration = registrations[key] else {
            throw ResolutionError.notRegistered(String(describing: type))
        }
        if registration.lifetime == .singleton, let existing = singletons[key] {
            return existing as! Service
        }
        guard resolving.insert(key).inserted else {
            throw ResolutionError.circularDependency(String(describing: type))
        }
        defer { resolving.remove(key) }
        let instance = try registration.factory(self) as! Service
        if registration.lifetime == .singleton {
            singletons[key] = instance
        }
        return instance
    }
}
