import Foundation

private struct SemVer {
    var core: [Substring]
    var prerelease: [Substring]
}

private func isIdentifier(_ s: Substring) -> Bool {
    !s.isEmpty && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
}

private func isNumeric(_ s: Substring) -> Bool {
    !s.isEmpty && s.allSatisfy { ("0"..."9").contains($0) }
}

private func hasLeadingZero(_ s: Substring) -> Bool {
    s.count > 1 && s.first == "0"
}

private func parseSemVer(_ text: String) -> SemVer? {
    var rest = Substring(text)
    if let plus = rest.firstIndex(of: "+") {
        let build = rest[rest.index(after: plus)...]
        let ids = build.split(separator: ".", omittingEmptySubsequences: false)
        guard ids.allSatisfy(isIdentifier) else { return nil }
        rest = rest[..<plus]
    }
    var prerelease: [Substring] = []
    if let dash = rest.firstIndex(of: "-") {
        let pre = rest[rest.index(after: dash)...]
        prerelease = pre.split(separator: ".", omittingEmptySubsequences: false)
        guard prerelease.allSatisfy(isIdentifier) else { return nil }
        guard !prerelease.contains(where: { isNumeric($0) && hasLeadingZero($0) }) else { return nil }
        rest = rest[..<dash]
    }
    let core = rest.split(separator: ".", omittingEmptySubsequences: false)
    guard core.count == 3, core.allSatisfy({ isNumeric($0) && !hasLeadingZero($0) }) else { return nil }
    return SemVer(core: core, prerelease: prerelease)
}

/// Compares two digit strings without leading zeros numerically.
private func compareNumbers(_ a: Substring, _ b: Substring) -> ComparisonResult {
    if a.count != b.count { return a.count < b.count ? .orderedAscending : .orderedDescending }
    if a == b { return .orderedSame }
    return a < b ? .orderedAscending : .orderedDescending
}

private func compareIdentifiers(_ a: Substring, _ b: Substring) -> ComparisonResult {
    switch (isNumeric(a), isNumeric(b)) {
    case (true, true): return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
    case (true, false): return .orderedAscending
    case (false, true): return .orderedDescending
    case (false, false):
        let x = Array(a.utf8), y = Array(b.utf8)
        if x == y { return .orderedSame }
        return x.lexicographicallyPrecedes(y) ? .orderedAscending : .orderedDescending
    }
}

func compareSemanticVersions(_ lhs: String, _ rhs: String) -> ComparisonResult? {
    guard let a = parseSemVer(lhs), let b = parseSemVer(rhs) else { return nil }
    for (x, y) in zip(a.core, b.core) {
        let r = compareNumbers(x, y)
        if r != .orderedSame { return r }
    }
    switch (a.prerelease.isEmpty, b.prerelease.isEmpty) {
    case (true, true): return .orderedSame
    case (true, false): return .orderedDescending
    case (false, true): return .orderedAscending
    case (false, false):
        for (x, y) in zip(a.prerelease, b.prerelease) {
            let r = compareIdentifiers(x, y)
            if r != .orderedSame { return r }
        }
        if a.prerelease.count == b.prerelease.count { return .orderedSame }
        return a.prerelease.count < b.prerelease.count ? .orderedAscending : .orderedDescending
    }
}
