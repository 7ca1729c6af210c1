/// What a finished child process produced.
struct ProcessOutput: Equatable {
    /// Everything the child wrote to standard output, decoded as UTF-8.
    var stdout: String
    /// Everything the child wrote to standard error, decoded as UTF-8.
    var stderr: String
    /// The exit status, or 128 + the signal number if the child was killed by a signal.
    var exitCode: Int32
}
