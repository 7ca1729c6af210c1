enum EnvironmentError: Error, Equatable {
    /// A variable name that is empty or contains "=" or a line break, or a value with a line break.
    case invalidVariable(String)
    /// `/usr/bin/env` exited with a non-zero status (or was killed).
    case commandFailed(status: Int32)
}
