/// Merges `layers` (lowest priority first; nil layers skipped): each field from the last layer that
/// sets it, proxy fields merged individually, timeout defaulting to 30. Returns nil if host or port
/// is missing, a port is out of 1...65535, or the proxy has only one of host/port.
func resolveSettings(_ layers: [SettingsLayer?]) -> Settings? {
    fatalError("TODO")
}
