final class DIContainer {
    private struct Registration {
        let lifetime: Lifetime
        let factory: (DIContainer) throws -> Any
    }

    private var registrations: [ObjectIdentifier: Registration] = [:]
    private var singletons: [ObjectIdentifier: Any] = [:]
    private var resolving: Set<ObjectIdentifier> = []

    init() {}

    func register<Service>(_ type: Service.Type, lifetime: Lifetime = .transient,
                           factory: @escaping (DIContainer) throws -> Service) {
        let key = ObjectIdentifier(type)
        registrations[key] = Registration(lifetime: lifetime, factory: { try factory($0) })
        singletons[key] = nil
    }

    func resolve<Service>(_ type: Service.Type) throws -> Service {
        let key = ObjectIdentifier(type)
        guard let registration = registrations[key] else {
            throw ResolutionError.notRegistered(String(describing: type))
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
