import Foundation

func test_core_numbers_compare_numerically() throws {
    try expectEqual(compareSemanticVersions("1.0.0", "2.0.0"), .orderedAscending)
    try expectEqual(compareSemanticVersions("1.10.0", "1.9.0"), .orderedDescending)
    try expectEqual(compareSemanticVersions("2.0.10", "2.0.9"), .orderedDescending)
    try expectEqual(compareSemanticVersions("0.0.0", "0.0.0"), .orderedSame)
    try expectEqual(compareSemanticVersions("1.2.3", "1.3.0"), .orderedAscending)
}

func test_prerelease_precedence_chain() throws {
    let chain = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta",
                 "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"]
    for i in 0..<(chain.count - 1) {
        try expectEqual(compareSemanticVersions(chain[i], chain[i + 1]), .orderedAscending, "\(chain[i]) < \(chain[i + 1])")
        try expectEqual(compareSemanticVersions(chain[i + 1], chain[i]), .orderedDescending, "\(chain[i + 1]) > \(chain[i])")
    }
    try expectEqual(compareSemanticVersions("1.0.0-rc.1", "0.9.9"), .orderedDescending)
    try expectEqual(compareSemanticVersions("1.0.0-1", "1.0.0-a"), .orderedAscending)
}

func test_build_metadata_is_ignored() throws {
    try expectEqual(compareSemanticVersions("1.0.0+build.1", "1.0.0+build.2"), .orderedSame)
    try expectEqual(compareSemanticVersions("1.0.0-rc.1+exp.sha.5114f85", "1.0.0-rc.1"), .orderedSame)
    try expectEqual(compareSemanticVersions("1.0.0+001", "1.0.1"), .orderedAscending)
}

func test_invalid_versions_give_nil() throws {
    let invalid = ["1.0", "1.0.0.0", "01.0.0", "1.02.0", "v1.0.0", "1.0.0-", "1.0.0-alpha..1",
                   "1.0.0-01", "1.0.0+", "", "1.0.0-al$pha", " 1.0.0", "1.a.0"]
    for text in invalid {
        try expectNil(compareSemanticVersions(text, "1.0.0"), "\"\(text)\" is invalid")
        try expectNil(compareSemanticVersions("1.0.0", text), "\"\(text)\" is invalid")
    }
}

func test_huge_numbers() throws {
    try expectEqual(compareSemanticVersions("1.0.99999999999999999999", "1.0.100000000000000000000"), .orderedAscending)
    try expectEqual(compareSemanticVersions("1.0.0-99999999999999999999", "1.0.0-100000000000000000000"), .orderedAscending)
}
