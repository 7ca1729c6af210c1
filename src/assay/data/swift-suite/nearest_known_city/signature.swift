import Foundation

/// Returns the trimmed, non-empty city of the nearest person in the chain
/// `employee`, `employee.manager`, `employee.manager.manager`, ...; nil if none.
/// Each employee object is examined at most once, so cycles end the search.
func nearestKnownCity(for employee: Employee?) -> String? {
    fatalError("TODO")
}
