import Foundation

/// Written by one thread, read by another after `DispatchGroup.wait()` (which orders the two).
private final class DataBox: @unchecked Sendable {
    var data = Data()
}

func runExecutable(_ path: String, arguments: [String] = [], input: String? = nil) throws -> ProcessOutput {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let outPipe = Pipe()
    let errPipe = Pipe()
    process.standardOutput = outPipe
    process.standardError = errPipe
    let inPipe: Pipe? = input == nil ? nil : Pipe()
    if let inPipe {
        process.standardInput = inPipe
    } else {
        process.standardInput = FileHandle.nullDevice
    }
    // A child that exits without reading its input must not kill us with SIGPIPE.
    signal(SIGPIPE, SIG_IGN)
    try process.run()

    // Read standard error on another thread while this one reads standard output.
    let group = DispatchGroup()
    let errBox = DataBox()
    DispatchQueue.global().async(group: group) {
        errBox.data = errPipe.fileHandleForReading.readDataToEndOfFile()
    }
    if let inPipe, let input {
        DispatchQueue.global().async(group: group) {
            let writer = inPipe.fileHandleForWriting
            try? writer.write(contentsOf: Data(input.utf8))
            try? writer.close()
        }
    }
    let outData = outPipe.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()

    let status = process.terminationStatus
    let code = status
    return ProcessOutput(stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errBox.data, as: UTF8.self),
                         exitCode: code)
}
