import Foundation

/// Runs the executable at `path` with `arguments` (no shell), feeding it `input` on standard input
/// (empty if nil), and returns its captured standard output, standard error and exit code
/// (128 + signal number if killed by a signal). Throws if the process cannot be started.
func runExecutable(_ path: String, arguments: [String] = [], input: String? = nil) throws -> ProcessOutput {
    fatalError("TODO")
}
