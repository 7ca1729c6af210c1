import Foundation

/// Compares two semantic versions (semver.org 2.0.0) by precedence.
/// - Returns: `.orderedAscending` if `lhs` < `rhs`, `.orderedDescending` if `lhs` > `rhs`,
///   `.orderedSame` if equal precedence (build metadata is ignored), `nil` if either is invalid.
func compareSemanticVersions(_ lhs: String, _ rhs: String) -> ComparisonResult? {
    fatalError("TODO")
}
