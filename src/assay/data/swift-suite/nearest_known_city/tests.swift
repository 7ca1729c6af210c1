func test_own_city_is_returned_trimmed() throws {
    let alice = Employee(name: "Alice", address: Address(street: "1 Main St", city: "  Lisbon\n"))
    try expectEqual(nearestKnownCity(for: alice), "Lisbon")
}

func test_walks_up_the_chain_skipping_unknown_cities() throws {
    let ceo = Employee(name: "Ceo", address: Address(street: "HQ", city: "Zurich"))
    let vp = Employee(name: "Vp", address: Address(street: "2 Side St", city: " \t "), manager: ceo)
    let lead = Employee(name: "Lead", address: Address(street: "3 Road", city: nil), manager: vp)
    let dev = Employee(name: "Dev", address: nil, manager: lead)
    try expectEqual(nearestKnownCity(for: dev), "Zurich")
    ceo.address?.city = ""
    try expectNil(nearestKnownCity(for: dev))
}

func test_nil_employee_and_end_of_chain() throws {
    try expectNil(nearestKnownCity(for: nil))
    let loner = Employee(name: "Loner")
    try expectNil(nearestKnownCity(for: loner))
}

func test_cycles_end_the_search() throws {
    let a = Employee(name: "A")
    let b = Employee(name: "B", manager: a)
    a.manager = b
    try expectNil(nearestKnownCity(for: a))
    let c = Employee(name: "C", address: Address(street: "x", city: "Oslo"), manager: a)
    try expectEqual(nearestKnownCity(for: c), "Oslo")
    let d = Employee(name: "D", manager: b)
    a.address = Address(street: "y", city: "Rome")
    try expectEqual(nearestKnownCity(for: d), "Rome")
    let self1 = Employee(name: "Self")
    self1.manager = self1
    try expectNil(nearestKnownCity(for: self1))
}
