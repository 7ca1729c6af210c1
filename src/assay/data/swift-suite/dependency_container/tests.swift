private protocol TLogger: AnyObject {
    func log(_ message: String)
}

private final class TMemoryLogger: TLogger {
    var lines: [String] = []
    func log(_ message: String) { lines.append(message) }
}

private final class TRepository {
    let logger: any TLogger
    init(logger: any TLogger) { self.logger = logger }
}

private final class TService {
    let repository: TRepository
    let name: String
    init(repository: TRepository, name: String) {
        self.repository = repository
        self.name = name
    }
}

private final class TChicken { let egg: TEgg?; init(_ egg: TEgg?) { self.egg = egg } }
private final class TEgg { let chicken: TChicken?; init(_ chicken: TChicken?) { self.chicken = chicken } }
private struct TFactoryFailure: Error {}

func test_transient_and_singleton_lifetimes() throws {
    let container = DIContainer()
    container.register(TRepository.self) { _ in TRepository(logger: TMemoryLogger()) }
    container.register((any TLogger).self, lifetime: .singleton) { _ in TMemoryLogger() }
    let r1 = try container.resolve(TRepository.self)
    let r2 = try container.resolve(TRepository.self)
    try expect(r1 !== r2, "transient gives new instances")
    let l1 = try container.resolve((any TLogger).self)
    let l2 = try container.resolve((any TLogger).self)
    try expect(l1 === l2, "singleton gives the same instance")
}

func test_factories_resolve_dependencies() throws {
    let container = DIContainer()
    container.register((any TLogger).self, lifetime: .singleton) { _ in TMemoryLogger() }
    container.register(TRepository.self, lifetime: .singleton) { c in TRepository(logger: try c.resolve((any TLogger).self)) }
    container.register(String.self) { _ in "orders" }
    container.register(TService.self) { c in
        TService(repository: try c.resolve(TRepository.self), name: try c.resolve(String.self))
    }
    let service = try container.resolve(TService.self)
    try expectEqual(service.name, "orders")
    try expect(service.repository === (try container.resolve(TRepository.self)))
    service.repository.logger.log("hello")
    let logger = try container.resolve((any TLogger).self) as? TMemoryLogger
    try expectEqual(logger?.lines, ["hello"])
}

func test_missing_registration_and_distinct_keys() throws {
    let container = DIContainer()
    try expectThrows(try container.resolve(TService.self), ResolutionError.notRegistered(String(describing: TService.self)))
    container.register(Int.self) { _ in 42 }
    try expectEqual(try container.resolve(Int.self), 42)
    try expectThrows(try container.resolve(Int?.self), ResolutionError.notRegistered(String(describing: Int?.self)))
    container.register(Int?.self) { _ in nil }
    try expectEqual(try container.resolve(Int?.self), nil)
    try expectEqual(try container.resolve(Int.self), 42)
}

func test_reregistering_replaces_and_forgets_singleton() throws {
    let container = DIContainer()
    container.register(TMemoryLogger.self, lifetime: .singleton) { _ in TMemoryLogger() }
    let first = try container.resolve(TMemoryLogger.self)
    try expect(first === (try container.resolve(TMemoryLogger.self)))
    container.register(TMemoryLogger.self, lifetime: .singleton) { _ in TMemoryLogger() }
    try expect(first !== (try container.resolve(TMemoryLogger.self)), "a new registration forgets the old singleton")
    var attempts = 0
    container.register(TRepository.self, lifetime: .singleton) { c in
        attempts += 1
        if attempts == 1 { throw TFactoryFailure() }
        return TRepository(logger: try c.resolve(TMemoryLogger.self))
    }
    try expectThrows(try container.resolve(TRepository.self), matching: { $0 is TFactoryFailure })
    let repo = try container.resolve(TRepository.self)
    try expect(repo === (try container.resolve(TRepository.self)))
    try expectEqual(attempts, 2)
}

func test_circular_dependencies_are_detected() throws {
    let container = DIContainer()
    container.register(TChicken.self) { c in TChicken(try c.resolve(TEgg.self)) }
    container.register(TEgg.self) { c in TEgg(try c.resolve(TChicken.self)) }
    try expectThrows(try container.resolve(TChicken.self), ResolutionError.circularDependency(String(describing: TChicken.self)))
    try expectThrows(try container.resolve(TEgg.self), ResolutionError.circularDependency(String(describing: TEgg.self)))
    // breaking the cycle makes both resolvable (nothing is left marked as "being resolved")
    container.register(TEgg.self) { _ in TEgg(nil) }
    let chicken = try container.resolve(TChicken.self)
    try expect(chicken.egg != nil)
    _ = try container.resolve(TEgg.self)
}
