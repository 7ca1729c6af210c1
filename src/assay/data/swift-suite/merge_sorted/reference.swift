func mergeSorted<A: Sequence, B: Sequence>(_ a: A, _ b: B) -> [A.Element] where A.Element == B.Element, A.Element: Comparable {
    var result: [A.Element] = []
    result.reserveCapacity(a.underestimatedCount + b.underestimatedCount)
    var ia = a.makeIterator()
    var ib = b.makeIterator()
    var x = ia.next()
    var y = ib.next()
    while let xv = x, let yv = y {
        if yv < xv {
            result.append(yv)
            y = ib.next()
        } else {
            result.append(xv)
            x = ia.next()
        }
    }
    while let xv = x {
        result.append(xv)
        x = ia.next()
    }
    while let yv = y {
        result.append(yv)
        y = ib.next()
    }
    return result
}
