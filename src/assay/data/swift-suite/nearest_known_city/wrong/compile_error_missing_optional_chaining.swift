import Foundation

func nearestKnownCity(for employee: Employee?) -> String? {
    var seen = Set<ObjectIdentifier>()
    var current = employee
    while let person = current, seen.insert(ObjectIdentifier(person)).inserted {
        let city = person.address.city.trimmingCharacters(in: .whitespacesAndNewlines)
        if !city.isEmpty {
            return city
        }
        current = person.manager
    }
    return nil
}
