extension TimeZoneRules {
    /// `2026-11-26T01:00:00+01:00`: the instant `second` (since the epoch) on this zone's clock,
    /// as RFC 3339 writes it with the zone's offset then.
    public func rfc3339(second: Int64) -> String {
        let offset = self.offset(at: second)
        let magnitude = abs(offset)
        return CivilDate.dateTime(secondsSince1970: second + offset) + (offset < 0 ? "-" : "+") + CivilDate.padded(magnitude / 3600, 2) + ":"
            + CivilDate.padded(magnitude / 60 % 60, 2)
    }
}
