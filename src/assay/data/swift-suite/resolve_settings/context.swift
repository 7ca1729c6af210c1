/// Proxy fields a layer may override.
struct ProxyOverrides {
    var host: String?
    var port: Int?
}

/// One configuration layer (defaults file, user file, environment, command line, ...).
struct SettingsLayer {
    var host: String?
    var port: Int?
    var timeoutSeconds: Double?
    var proxy: ProxyOverrides?
}

struct Proxy: Equatable {
    var host: String
    var port: Int
}

struct Settings: Equatable {
    var host: String
    var port: Int
    var timeoutSeconds: Double
    var proxy: Proxy?
}
