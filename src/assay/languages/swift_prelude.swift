// Assay Swift test prelude.
//
// Compiled into every Swift test program, before the problem's context, the candidate solution,
// the tests and the generated main.swift. Tests use only these expectations: each one throws an
// `AssayExpectationFailure` (which says where it failed) instead of trapping, so one failing test
// does not stop the others. Swift 6 clean: no global mutable state, everything is Sendable or local.

import Foundation

/// The error every expectation throws when it does not hold.
struct AssayExpectationFailure: Error, CustomStringConvertible {
    let message: String
    let file: String
    let line: UInt

    init(_ message: String, file: StaticString = #filePath, line: UInt = #line) {
        self.message = message
        self.file = "\(file)"
        self.line = line
    }

    var description: String {
        let name = file.split(separator: "/").last.map(String.init) ?? file
        return "\(name):\(line): \(message)"
    }
}

/// Joins a failure reason with the optional message a test gave.
private func assayCompose(_ reason: String, _ message: String) -> String {
    message.isEmpty ? reason : "\(reason) - \(message)"
}

/// Always fails with `message`.
func fail(_ message: String = "failed", file: StaticString = #filePath, line: UInt = #line) throws -> Never {
    throw AssayExpectationFailure(message, file: file, line: line)
}

/// Fails unless `condition` is true.
func expect(
    _ condition: @autoclosure () throws -> Bool,
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) throws {
    guard try condition() else {
        throw AssayExpectationFailure(assayCompose("expectation failed", message()), file: file, line: line)
    }
}

/// Fails unless `actual == expected`; the message shows both values.
func expectEqual<T: Equatable>(
    _ actual: @autoclosure () throws -> T,
    _ expected: @autoclosure () throws -> T,
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) throws {
    let a = try actual()
    let e = try expected()
    guard a == e else {
        let reason = "expected \(String(describing: e)), got \(String(describing: a))"
        throw AssayExpectationFailure(assayCompose(reason, message()), file: file, line: line)
    }
}

/// Fails unless `value` is nil.
func expectNil<T>(
    _ value: @autoclosure () throws -> T?,
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) throws {
    if let v = try value() {
        let reason = "expected nil, got \(String(describing: v))"
        throw AssayExpectationFailure(assayCompose(reason, message()), file: file, line: line)
    }
}

/// Fails if `value` is nil; returns the unwrapped value.
@discardableResult
func expectNotNil<T>(
    _ value: @autoclosure () throws -> T?,
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) throws -> T {
    guard let v = try value() else {
        throw AssayExpectationFailure(assayCompose("expected a value, got nil", message()), file: file, line: line)
    }
    return v
}

/// Fails unless `|a - b| <= tolerance` (NaN never matches).
func expectApproxEqual(
    _ a: Double, _ b: Double, tolerance: Double = 1e-9,
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) throws {
    guard abs(a - b) <= tolerance else {
        let reason = "expected \(b) (tolerance \(tolerance)), got \(a)"
        throw AssayExpectationFailure(assayCompose(reason, message()), file: file, line: line)
    }
}

/// Fails unless evaluating `body` throws; returns the error thrown.
@discardableResult
func expectThrows<T>(
    _ body: @autoclosure () throws -> T,
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) throws -> any Error {
    do {
        let value = try body()
        let reason = "expected an error, got \(String(describing: value))"
        throw AssayExpectationFailure(assayCompose(reason, message()), file: file, line: line)
    } catch let failure as AssayExpectationFailure {
        throw failure
    } catch {
        return error
    }
}

/// Fails unless evaluating `body` throws an error of type `E` equal to `expected`.
func expectThrows<T, E: Error & Equatable>(
    _ body: @autoclosure () throws -> T,
    _ expected: E,
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) throws {
    let error = try expectThrows(try body(), message(), file: file, line: line)
    try assayCheckError(error, expected, message(), file: file, line: line)
}

/// Fails unless evaluating `body` throws an error for which `predicate` returns true.
func expectThrows<T>(
    _ body: @autoclosure () throws -> T,
    matching predicate: (any Error) -> Bool,
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) throws {
    let error = try expectThrows(try body(), message(), file: file, line: line)
    guard predicate(error) else {
        let reason = "the error thrown does not match: \(String(describing: error))"
        throw AssayExpectationFailure(assayCompose(reason, message()), file: file, line: line)
    }
}

/// Async variant: fails unless `body` throws; returns the error thrown.
@discardableResult
func expectThrowsAsync<T>(
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line,
    _ body: () async throws -> T
) async throws -> any Error {
    do {
        let value = try await body()
        let reason = "expected an error, got \(String(describing: value))"
        throw AssayExpectationFailure(assayCompose(reason, message()), file: file, line: line)
    } catch let failure as AssayExpectationFailure {
        throw failure
    } catch {
        return error
    }
}

/// Async variant: fails unless `body` throws an error of type `E` equal to `expected`.
func expectThrowsAsync<T, E: Error & Equatable>(
    _ expected: E,
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line,
    _ body: () async throws -> T
) async throws {
    let error = try await expectThrowsAsync(message(), file: file, line: line, body)
    try assayCheckError(error, expected, message(), file: file, line: line)
}

private func assayCheckError<E: Error & Equatable>(
    _ error: any Error, _ expected: E, _ message: String, file: StaticString, line: UInt
) throws {
    guard let typed = error as? E else {
        let reason = "expected error \(String(describing: expected)) of type \(E.self), "
            + "got \(String(describing: error)) of type \(type(of: error))"
        throw AssayExpectationFailure(assayCompose(reason, message), file: file, line: line)
    }
    guard typed == expected else {
        let reason = "expected error \(String(describing: expected)), got \(String(describing: typed))"
        throw AssayExpectationFailure(assayCompose(reason, message), file: file, line: line)
    }
}

/// Used by the generated main.swift: one report line per test, written unbuffered so that it is
/// not lost if a later test crashes the process. Line breaks in the message are written as the
/// two-character escapes `\n` and `\r`, so each report is one line.
func assayReport(_ name: String, _ error: (any Error)?) {
    let line: String
    if let error {
        var text = ""
        for scalar in String(describing: error).unicodeScalars {
            switch scalar {
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            default: text.unicodeScalars.append(scalar)
            }
        }
        line = "ASSAY-TEST \(name) FAIL \(text)\n"
    } else {
        line = "ASSAY-TEST \(name) PASS\n"
    }
    FileHandle.standardOutput.write(Data(line.utf8))
}
