// Assay Swift test prelude.
//
// Compiled into every Swift test program, before the problem's context, the candidate solution,
// the tests and the generated main.swift. Tests use only these expectations: each one throws an
// `AssayExpectationFailure` (which says where it failed) instead of trapping, so one failing test
// does not stop the others. Swift 6 clean: no global mutable state, everything is Sendable or local.
//
// Each build gives every name declared here a random suffix, in this file and at the tests' call
// sites (assay.languages.swift_units), so a solution cannot overload them. The standard library is
// named as `Swift.X`: a solution that declares a type `Double` or a protocol `Equatable` of its own
// does not change what these mean (and one that declares the name `Swift` is refused).

import Foundation

/// The error every expectation throws when it does not hold.
struct AssayExpectationFailure: Swift.Error, Swift.CustomStringConvertible {
    let message: Swift.String
    let file: Swift.String
    let line: Swift.UInt

    init(_ message: Swift.String, file: Swift.StaticString = #filePath, line: Swift.UInt = #line) {
        self.message = message
        self.file = "\(file)"
        self.line = line
    }

    var description: Swift.String {
        let name = file.split(separator: "/").last.map(Swift.String.init) ?? file
        return "\(name):\(line): \(message)"
    }
}

/// Joins a failure reason with the optional message a test gave.
private func assayCompose(_ reason: Swift.String, _ message: Swift.String) -> Swift.String {
    message.isEmpty ? reason : "\(reason) - \(message)"
}

/// Always fails with `message`.
func fail(_ message: Swift.String = "failed", file: Swift.StaticString = #filePath, line: Swift.UInt = #line) throws -> Swift.Never {
    throw AssayExpectationFailure(message, file: file, line: line)
}

/// Fails unless `condition` is true.
func expect(
    _ condition: @autoclosure () throws -> Swift.Bool,
    _ message: @autoclosure () -> Swift.String = "",
    file: Swift.StaticString = #filePath, line: Swift.UInt = #line
) throws {
    guard try condition() else {
        throw AssayExpectationFailure(assayCompose("expectation failed", message()), file: file, line: line)
    }
}

/// Fails unless `actual == expected`; the message shows both values.
func expectEqual<T: Swift.Equatable>(
    _ actual: @autoclosure () throws -> T,
    _ expected: @autoclosure () throws -> T,
    _ message: @autoclosure () -> Swift.String = "",
    file: Swift.StaticString = #filePath, line: Swift.UInt = #line
) throws {
    let a = try actual()
    let e = try expected()
    guard a == e else {
        let reason = "expected \(Swift.String(describing: e)), got \(Swift.String(describing: a))"
        throw AssayExpectationFailure(assayCompose(reason, message()), file: file, line: line)
    }
}

/// Fails unless `value` is nil.
func expectNil<T>(
    _ value: @autoclosure () throws -> T?,
    _ message: @autoclosure () -> Swift.String = "",
    file: Swift.StaticString = #filePath, line: Swift.UInt = #line
) throws {
    if let v = try value() {
        let reason = "expected nil, got \(Swift.String(describing: v))"
        throw AssayExpectationFailure(assayCompose(reason, message()), file: file, line: line)
    }
}

/// Fails if `value` is nil; returns the unwrapped value.
@discardableResult
func expectNotNil<T>(
    _ value: @autoclosure () throws -> T?,
    _ message: @autoclosure () -> Swift.String = "",
    file: Swift.StaticString = #filePath, line: Swift.UInt = #line
) throws -> T {
    guard let v = try value() else {
        throw AssayExpectationFailure(assayCompose("expected a value, got nil", message()), file: file, line: line)
    }
    return v
}

/// Fails unless `|a - b| <= tolerance` (NaN never matches).
func expectApproxEqual(
    _ a: Swift.Double, _ b: Swift.Double, tolerance: Swift.Double = 1e-9,
    _ message: @autoclosure () -> Swift.String = "",
    file: Swift.StaticString = #filePath, line: Swift.UInt = #line
) throws {
    guard Swift.abs(a - b) <= tolerance else {
        let reason = "expected \(b) (tolerance \(tolerance)), got \(a)"
        throw AssayExpectationFailure(assayCompose(reason, message()), file: file, line: line)
    }
}

/// Fails unless evaluating `body` throws; returns the error thrown.
@discardableResult
func expectThrows<T>(
    _ body: @autoclosure () throws -> T,
    _ message: @autoclosure () -> Swift.String = "",
    file: Swift.StaticString = #filePath, line: Swift.UInt = #line
) throws -> any Swift.Error {
    do {
        let value = try body()
        let reason = "expected an error, got \(Swift.String(describing: value))"
        throw AssayExpectationFailure(assayCompose(reason, message()), file: file, line: line)
    } catch let failure as AssayExpectationFailure {
        throw failure
    } catch {
        return error
    }
}

/// Fails unless evaluating `body` throws an error of type `E` equal to `expected`.
func expectThrows<T, E: Swift.Error & Swift.Equatable>(
    _ body: @autoclosure () throws -> T,
    _ expected: E,
    _ message: @autoclosure () -> Swift.String = "",
    file: Swift.StaticString = #filePath, line: Swift.UInt = #line
) throws {
    let error = try expectThrows(try body(), message(), file: file, line: line)
    try assayCheckError(error, expected, message(), file: file, line: line)
}

/// Fails unless evaluating `body` throws an error for which `predicate` returns true.
func expectThrows<T>(
    _ body: @autoclosure () throws -> T,
    matching predicate: (any Swift.Error) -> Swift.Bool,
    _ message: @autoclosure () -> Swift.String = "",
    file: Swift.StaticString = #filePath, line: Swift.UInt = #line
) throws {
    let error = try expectThrows(try body(), message(), file: file, line: line)
    guard predicate(error) else {
        let reason = "the error thrown does not match: \(Swift.String(describing: error))"
        throw AssayExpectationFailure(assayCompose(reason, message()), file: file, line: line)
    }
}

/// Async variant: fails unless `body` throws; returns the error thrown.
@discardableResult
func expectThrowsAsync<T>(
    _ message: @autoclosure () -> Swift.String = "",
    file: Swift.StaticString = #filePath, line: Swift.UInt = #line,
    _ body: () async throws -> T
) async throws -> any Swift.Error {
    do {
        let value = try await body()
        let reason = "expected an error, got \(Swift.String(describing: value))"
        throw AssayExpectationFailure(assayCompose(reason, message()), file: file, line: line)
    } catch let failure as AssayExpectationFailure {
        throw failure
    } catch {
        return error
    }
}

/// Async variant: fails unless `body` throws an error of type `E` equal to `expected`.
func expectThrowsAsync<T, E: Swift.Error & Swift.Equatable>(
    _ expected: E,
    _ message: @autoclosure () -> Swift.String = "",
    file: Swift.StaticString = #filePath, line: Swift.UInt = #line,
    _ body: () async throws -> T
) async throws {
    let error = try await expectThrowsAsync(message(), file: file, line: line, body)
    try assayCheckError(error, expected, message(), file: file, line: line)
}

private func assayCheckError<E: Swift.Error & Swift.Equatable>(
    _ error: any Swift.Error, _ expected: E, _ message: Swift.String, file: Swift.StaticString, line: Swift.UInt
) throws {
    guard let typed = error as? E else {
        let reason = "expected error \(Swift.String(describing: expected)) of type \(E.self), "
            + "got \(Swift.String(describing: error)) of type \(Swift.type(of: error))"
        throw AssayExpectationFailure(assayCompose(reason, message), file: file, line: line)
    }
    guard typed == expected else {
        let reason = "expected error \(Swift.String(describing: expected)), got \(Swift.String(describing: typed))"
        throw AssayExpectationFailure(assayCompose(reason, message), file: file, line: line)
    }
}
