import Foundation

func childEnvironment(_ variables: [String: String]) throws -> [String: String] {
    for (name, value) in variables {
        let badName = name.isEmpty || name.unicodeScalars.contains { $0 == "=" || $0 == "\n" || $0 == "\r" }
        let badValue = value.unicodeScalars.contains { $0 == "\n" || $0 == "\r" }
        if badName || badValue { throw EnvironmentError.invalidVariable(name) }
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = []
    process.environment = ProcessInfo.processInfo.environment.merging(variables) { _, new in new }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationReason == .exit, process.terminationStatus == 0 else {
        throw EnvironmentError.commandFailed(status: process.terminationStatus)
    }
    var result: [String: String] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        guard let eq = line.firstIndex(of: "=") else { continue }
        result[String(line[..<eq])] = String(line[line.index(after: eq)...])
    }
    return result
}
