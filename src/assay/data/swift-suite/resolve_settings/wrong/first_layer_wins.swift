func resolveSettings(_ layers: [SettingsLayer?]) -> Settings? {
    var host: String?
    var port: Int?
    var timeout: Double?
    var proxyHost: String?
    var proxyPort: Int?
    for layer in layers.reversed() {
        host = layer?.host ?? host
        port = layer?.port ?? port
        timeout = layer?.timeoutSeconds ?? timeout
        proxyHost = layer?.proxy?.host ?? proxyHost
        proxyPort = layer?.proxy?.port ?? proxyPort
    }
    let validPorts = 1...65535
    guard let host, let port, validPorts.contains(port) else { return nil }
    var proxy: Proxy?
    switch (proxyHost, proxyPort) {
    case (nil, nil):
        proxy = nil
    case let (proxyHost?, proxyPort?):
        guard validPorts.contains(proxyPort) else { return nil }
        proxy = Proxy(host: proxyHost, port: proxyPort)
    default:
        return nil
    }
    return Settings(host: host, port: port, timeoutSeconds: timeout ?? 30, proxy: proxy)
}
