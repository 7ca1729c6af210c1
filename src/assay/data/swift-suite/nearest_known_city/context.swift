struct Address {
    var street: String
    var city: String?
}

final class Employee {
    let name: String
    var address: Address?
    var manager: Employee?

    init(name: String, address: Address? = nil, manager: Employee? = nil) {
        self.name = name
        self.address = address
        self.manager = manager
    }
}
