extension TimeZoneRules {
    /// `2026-11-26T01:00:00+01:00`: the instant `second` (since the epoch) on this zone's clock,
    /// as RFC 3339 writes it with the zone's offset then.
    public func rfc3339(second: Int64) -> String {
        let offset = self.offset(at: second)
        let local = second + offset
        let days = CivilDate.floorDivide(local, 86_400)
        let (year, month, day) = CivilDate.date(daysSince1970: days)
        let time = local - days * 86_400
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let magnitude = abs(offset)
        return "\(year)-\(two(month))-\(two(day))T\(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60))"
            + "\(offset < 0 ? "-" : "+")\(two(magnitude / 3600)):\(two(magnitude / 60 % 60))"
    }
}
