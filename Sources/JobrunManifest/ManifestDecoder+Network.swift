import JobrunCore
import JobrunSystem

/// `network:` in `defaults` or a resource: whether and when a resource may transfer.
extension ManifestDecoder {
    static let networkKeys = ["cellular", "discretionary", "window", "timezone", "not_before", "max_deferral"]
    /// `max_deferral`'s range: at least a minute, at most a year.
    static let maxDeferralRange: ClosedRange<Int64> = 60_000...(365 * 86_400_000)

    /// Where settings are read: a file's `defaults` or one resource.
    enum SettingsScope {
        case defaults
        case resource(id: String)
    }

    /// Which of the `defaults`' network keys some resource of the file takes and is changed by:
    /// one that none is changed by has no effect, and is reported.
    struct NetworkDefaultsUse: Sendable {
        var timeZone = false
        var maxDeferral = false

        mutating func formUnion(_ other: NetworkDefaultsUse) {
            timeZone = timeZone || other.timeZone
            maxDeferral = maxDeferral || other.maxDeferral
        }
    }

    /// Reads the keys of `node` over `p`, which holds what the resource inherits. A resource's own
    /// `timezone` and `max_deferral` are reported when they have no effect on the result.
    mutating func readNetwork(_ node: YAMLNode, into p: inout NetworkPolicy, scope: SettingsScope) {
        guard requireMapping(node, "'network'") else { return }
        checkKeys(node, allowed: Self.networkKeys, in: "'network'")
        let errorsBefore = diagnostics.errorCount
        if let n = doc.value(forKey: "cellular", in: node), let b = boolean(n, "cellular") { p.allowsCellular = b }
        if let n = doc.value(forKey: "discretionary", in: node), let b = boolean(n, "discretionary") { p.isDiscretionary = b }
        if let n = doc.value(forKey: "window", in: node) { readWindow(n, into: &p, scope: scope) }
        let zoneNode = doc.value(forKey: "timezone", in: node)
        if let n = zoneNode, let text = string(n, "timezone"), isFreeOfDeceptiveCharacters(text, node: n, field: "'timezone'"),
            let zone = timeZone(named: text, node: n)
        {
            p.timeZone = zone
        }
        if let n = doc.value(forKey: "not_before", in: node), let text = string(n, "not_before", expected: "an RFC 3339 date and time") {
            if let ms = RFC3339.milliseconds(text) {
                p.notBefore = Date(timeIntervalSince1970: Double(ms) / 1000)
            } else {
                diagnostics.error(
                    "'not_before' must be an RFC 3339 date and time with a zone, like 2026-12-01T02:00:00Z or 2026-12-01T03:00:00+01:00; found '\(text)'",
                    at: location(n))
            }
        }
        let maxDeferralNode = doc.value(forKey: "max_deferral", in: node)
        if let n = maxDeferralNode, let d = duration(n, "max_deferral", in: Self.maxDeferralRange) { p.maxDeferral = d }

        // What `defaults` gives is judged once every resource has taken it (decode()).
        guard case .resource(let id) = scope, diagnostics.errorCount == errorsBefore else { return }
        if let n = zoneNode, p.window == nil {
            diagnostics.warning("'timezone' has no effect: it is the zone of 'window', and resource '\(id)' has none", at: location(n))
        }
        if let n = maxDeferralNode, !p.defersForConditions {
            diagnostics.warning(
                "'max_deferral' has no effect: it limits deferral for a metered network, power or load, and resource '\(id)' has neither 'discretionary: true' nor 'cellular: false'",
                at: location(n))
        }
    }

    /// `window: "01:00-06:00"`; `00:00-24:00` lifts an inherited window (and does nothing else).
    mutating func readWindow(_ node: YAMLNode, into p: inout NetworkPolicy, scope: SettingsScope) {
        guard let text = string(node, "window", expected: "a time range like 01:00-06:00") else { return }
        switch Self.parseWindow(text) {
        case .success(let window?):
            p.window = window
        case .success(nil):
            if p.window == nil {
                let why = if case .defaults = scope { "" } else { " and 'defaults' sets no window for it to lift" }
                diagnostics.warning("'window' \(text) is open all day\(why), so it has no effect", at: location(node))
            }
            p.window = nil
        case .failure(.malformed):
            diagnostics.error("'window' must be a daily time range in 24-hour local time, like 01:00-06:00 or 22:00-06:00; found '\(text)'", at: location(node))
        case .failure(.invalidTime(let time, let offset)):
            diagnostics.error(
                "'window' has an invalid time '\(time)' (hours 00 to 23, minutes 00 to 59; 24:00 only as the end)",
                at: location(node, offsetInScalar: offset))
        case .failure(.empty):
            diagnostics.error("'window' \(text) starts where it ends; give a range, or leave 'window' out to allow any time", at: location(node))
        }
    }

    enum WindowProblem: Error {
        case malformed
        /// The time as written and its byte offset in the value.
        case invalidTime(String, offset: Int)
        case empty
    }

    /// `HH:MM-HH:MM` (one-digit hours too, spaces around the dash allowed): a window, or `nil`
    /// for `00:00-24:00`, which is open all day.
    static func parseWindow(_ text: String) -> Result<DailyWindow?, WindowProblem> {
        let bytes = Array(text.utf8)
        guard let dash = bytes.firstIndex(of: UInt8(ascii: "-")) else { return .failure(.malformed) }
        func trimmed(_ range: Range<Int>) -> Range<Int> {
            var r = range
            while r.lowerBound < r.upperBound, bytes[r.lowerBound] == UInt8(ascii: " ") { r = (r.lowerBound + 1)..<r.upperBound }
            while r.lowerBound < r.upperBound, bytes[r.upperBound - 1] == UInt8(ascii: " ") { r = r.lowerBound..<(r.upperBound - 1) }
            return r
        }
        let parts = [trimmed(0..<dash), trimmed((dash + 1)..<bytes.count)]
        var minutes: [Int] = []
        for (k, part) in parts.enumerated() {
            let b = bytes[part]
            guard let colon = b.firstIndex(of: UInt8(ascii: ":")), (1...2).contains(colon - part.lowerBound), part.upperBound - colon == 3,
                b.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ":") }),
                let h = Int(String(decoding: bytes[part.lowerBound..<colon], as: UTF8.self)),
                let m = Int(String(decoding: bytes[(colon + 1)..<part.upperBound], as: UTF8.self))
            else { return .failure(.malformed) }
            let isEndOfDay = k == 1 && h == 24 && m == 0
            guard isEndOfDay || (h < 24 && m < 60) else {
                return .failure(.invalidTime(String(decoding: b, as: UTF8.self), offset: part.lowerBound))
            }
            minutes.append(h * 60 + m)
        }
        if minutes[0] == 0 && minutes[1] == 1440 { return .success(nil) }
        guard let window = DailyWindow(start: minutes[0], end: minutes[1]) else { return .failure(.empty) }
        return .success(window)
    }

    /// The zone named `text` from the database (`TZDIR`, else /usr/share/zoneinfo), read through the
    /// loader's file source; reported at `node` when there is none.
    mutating func timeZone(named text: String, node: YAMLNode) -> TimeZoneRules? {
        let directory = TimeZoneRules.directory(environment: options.environment)
        let files = options.files
        let result = timeZones[text] ?? TimeZoneRules.load(text, directory: directory, read: { files.read($0) })
        timeZones[text] = result
        switch result {
        case .success(let zone):
            return zone
        case .failure(.invalidIdentifier), .failure(.unknown):
            diagnostics.error(
                "unknown time zone '\(text)'\(timeZoneSuggestion(for: text, directory: directory)); write an IANA name like Europe/Berlin or UTC",
                at: location(node))
        case .failure(.noDatabase(let dir)):
            diagnostics.error(
                "time zone '\(text)' cannot be looked up: there is no time zone database in '\(dir)' (install the tzdata package, or set TZDIR)",
                at: location(node))
        case .failure(.unreadable(let path, let reason)):
            diagnostics.error("cannot read the file of time zone '\(text)', '\(path)': \(reason)", at: location(node))
        case .failure(.malformed(let path, .leapSeconds)):
            diagnostics.error("time zone '\(text)' ('\(path)') counts leap seconds; use the zone without 'right/'", at: location(node))
        case .failure(.malformed(let path, let problem)):
            let why = if case .malformed(let reason) = problem { reason } else { "it is not a zone file" }
            diagnostics.error("the file of time zone '\(text)', '\(path)', is not usable: \(why)", at: location(node))
        }
        return nil
    }

    /// " (did you mean 'Europe/Berlin'?)": the database's closest name, or else the one whose last
    /// component is the one given (`berlin`, `New York`).
    mutating func timeZoneSuggestion(for text: String, directory: String) -> String {
        if timeZoneNames == nil {
            let files = options.files
            timeZoneNames = TimeZoneRules.identifiers(directory: directory, read: { files.read($0) })
        }
        let names = timeZoneNames ?? []
        if let close = Suggestions.closest(to: text, in: names) { return " (did you mean '\(close)'?)" }
        let city = String(text.split(separator: "/").last ?? "").replacing(" ", with: "_").lowercased()
        let matches = names.filter { $0.split(separator: "/").last.map { $0.lowercased() == city } ?? false }
        guard !city.isEmpty, let first = matches.first else { return "" }
        return " (did you mean '\(first)'?)"
    }

    /// After every resource of the file is decoded: reports `defaults`' `timezone` and
    /// `max_deferral` when no resource is changed by them.
    mutating func checkNetworkDefaultsUse(_ defaults: YAMLNode) {
        guard let network = doc.value(forKey: "network", in: defaults) else { return }
        if let n = doc.value(forKey: "timezone", in: network), !networkDefaultsUse.timeZone {
            diagnostics.warning(
                "'timezone' in 'defaults' has no effect: it is the zone of 'window', and no resource of this file that takes it has one", at: location(n))
        }
        if let n = doc.value(forKey: "max_deferral", in: network), !networkDefaultsUse.maxDeferral {
            diagnostics.warning(
                "'max_deferral' in 'defaults' has no effect: it limits deferral for a metered network, power or load, and no resource of this file that takes it has 'discretionary: true' or 'cellular: false'",
                at: location(n))
        }
    }

    /// Notes which `defaults` network keys `resource` (its mapping) takes and is changed by.
    mutating func noteNetworkDefaultsUse(resource: YAMLNode, policy: NetworkPolicy) {
        let own = doc.value(forKey: "network", in: resource)
        func hasOwn(_ key: StaticString) -> Bool { own.flatMap { doc.value(forKey: key, in: $0) } != nil }
        if policy.window != nil && !hasOwn("timezone") { networkDefaultsUse.timeZone = true }
        if policy.defersForConditions && !hasOwn("max_deferral") { networkDefaultsUse.maxDeferral = true }
    }
}
