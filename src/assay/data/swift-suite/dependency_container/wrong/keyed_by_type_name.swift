import Foundation

final class DIContainer {
    private struct Registration {
        let lifetime: Lifetime
        let factory: (DIContainer) throws -> Any
    }

    private var registrations: [String: Registration] = [:]
    private var singletons: [String: Any] = [:]
    private var resolving: Set<String> = []

    init() {}

    func register<Service>(_ type: Service.Type, lifetime: Lifetime = .transient,
                           factory: @escaping (DIContainer) throws -> Service) {
        let key = String(describing: type).replacingOccurrences(of: "Optional<", with: "").replacingOccurrences(of: ">", with: "")
        registrations[key] = Registration(lifetime: lifetime, factory: { try factory($0) })
        singletons[key] = nil
    }

    func resolve<Service>(_ type: Service.Type) throws -> Service {
        let key = String(describing: type).replacingOccurrences(of: "Optional<", with: "").replacingOccurrences(of: ">", with: "")
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
