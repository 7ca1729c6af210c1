func test_later_layers_override_earlier_ones() throws {
    let defaults = SettingsLayer(host: "localhost", port: 8080, timeoutSeconds: 10)
    let user = SettingsLayer(host: "api.example.com", port: nil, timeoutSeconds: nil)
    let cli = SettingsLayer(host: nil, port: 9443, timeoutSeconds: nil)
    try expectEqual(resolveSettings([defaults, nil, user, cli]),
                    Settings(host: "api.example.com", port: 9443, timeoutSeconds: 10, proxy: nil))
    try expectEqual(resolveSettings([cli, user, defaults]),
                    Settings(host: "localhost", port: 8080, timeoutSeconds: 10, proxy: nil))
}

func test_required_fields_and_default_timeout() throws {
    try expectEqual(resolveSettings([SettingsLayer(host: "h", port: 1)]),
                    Settings(host: "h", port: 1, timeoutSeconds: 30, proxy: nil))
    try expectNil(resolveSettings([SettingsLayer(host: "h"), nil]))
    try expectNil(resolveSettings([SettingsLayer(port: 80)]))
    try expectNil(resolveSettings([]))
    try expectNil(resolveSettings([nil, nil]))
    try expectNil(resolveSettings([SettingsLayer(host: "h", port: 0)]))
    try expectNil(resolveSettings([SettingsLayer(host: "h", port: 65536)]))
}

func test_proxy_fields_merge_individually() throws {
    let base = SettingsLayer(host: "h", port: 443, proxy: ProxyOverrides(host: "proxy.internal", port: 3128))
    let override = SettingsLayer(proxy: ProxyOverrides(host: nil, port: 8888))
    let noProxyInfo = SettingsLayer(timeoutSeconds: 2.5, proxy: nil)
    try expectEqual(resolveSettings([base, override, noProxyInfo]),
                    Settings(host: "h", port: 443, timeoutSeconds: 2.5, proxy: Proxy(host: "proxy.internal", port: 8888)))
    let split = [SettingsLayer(host: "h", port: 1, proxy: ProxyOverrides(host: "p", port: nil)),
                 SettingsLayer(proxy: ProxyOverrides(host: nil, port: 9))]
    try expectEqual(resolveSettings(split)?.proxy, Proxy(host: "p", port: 9))
}

func test_incomplete_or_invalid_proxy_is_invalid() throws {
    try expectNil(resolveSettings([SettingsLayer(host: "h", port: 1, proxy: ProxyOverrides(host: "p", port: nil))]))
    try expectNil(resolveSettings([SettingsLayer(host: "h", port: 1, proxy: ProxyOverrides(host: nil, port: 8080))]))
    try expectNil(resolveSettings([SettingsLayer(host: "h", port: 1, proxy: ProxyOverrides(host: "p", port: 70000))]))
    try expectEqual(resolveSettings([SettingsLayer(host: "h", port: 1, proxy: ProxyOverrides())])?.proxy, nil)
}
