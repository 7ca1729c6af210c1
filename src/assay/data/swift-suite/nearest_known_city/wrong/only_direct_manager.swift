import Foundation

func nearestKnownCity(for employee: Employee?) -> String? {
    for person in [employee, employee?.manager] {
        if let city = person?.address?.city?.trimmingCharacters(in: .whitespacesAndNewlines), !city.isEmpty {
            return city
        }
    }
    return nil
}
