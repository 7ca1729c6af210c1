import Foundation

/// Runs `/usr/bin/env` with exactly `variables` as its environment (nothing inherited) and
/// returns the `NAME=VALUE` lines it prints, split at the first `=`.
/// Throws `EnvironmentError.invalidVariable` for names/values that cannot be passed.
func childEnvironment(_ variables: [String: String]) throws -> [String: String] {
    fatalError("TODO")
}
