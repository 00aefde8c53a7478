import JobrunCore
public import JobrunManifest

extension Plan {
    /// What the run will ask of one origin (`scheme://host[:port]`): its slices to transfer and
    /// the most any of their resources allows there, each of its multiplexed connections carrying
    /// the fewest streams of those resources (as the run's slots do).
    public struct OriginUse: Sendable, Hashable {
        public var origin: String
        public var slices = 0
        /// Slots at once (transfers over HTTP/1.1, connections over HTTP/2): `per_host`, within `total`.
        public var slots = 0
        public var streams = 0
        /// The most of those requests in flight at once, over HTTP/2.
        public var requestsInFlight: Int { min(slots * streams, ConcurrencyLimits.mostInFlight) }
        public var adaptive = false
        /// Slices to transfer that go to an earlier origin first and come here if it fails them.
        public var fallbacks = 0

        /// `@ https://cdn.example: 412 slices to transfer, 4 at once over HTTP/1.1, up to 128 over HTTP/2 (4
        /// connections of 32 streams)`, and `; adaptive, from 4` when its limit adapts.
        public var line: String {
            var text = "@ \(origin): "
            if slices > 0 || fallbacks == 0 { text += "\(slices) slice\(slices == 1 ? "" : "s") to transfer" }
            if fallbacks > 0 {
                text += slices > 0 ? " (and a fallback for \(fallbacks) more)" : "a fallback for \(fallbacks) slice\(fallbacks == 1 ? "" : "s")"
            }
            text += ", \(slots) at once over HTTP/1.1"
            if streams > 1 {
                text += ", up to \(requestsInFlight) over HTTP/2 (\(slots) connection\(slots == 1 ? "" : "s") of \(streams) streams)"
            }
            if adaptive { text += "; adaptive, from \(min(ConcurrencyLimits.adaptiveStart, slots * streams))" }
            return text
        }
    }

    /// The origins the run will send requests to (of the slices to fetch, resume or refetch), by
    /// origin: a slice counts at its first URL's, and as a fallback at its others'; a redirect's
    /// target is not known before its answer.
    public var origins: [OriginUse] {
        var uses: [String: OriginUse] = [:]
        for entry in entries {
            let r = entry.resource
            let limits = r.settings.concurrency
            let bases = r.origins.map { try? ParsedURL.parse($0.url).get().origin }
            for (s, d) in zip(r.slices, entry.decisions) {
                switch d.action {
                case .fetch, .resume, .refetch, .revalidate: break
                case .upToDate, .deferred: continue
                }
                let count = r.urlCount(of: s)
                // Counted once per origin (two entries may share one); no list for one URL.
                var seen: [String] = []
                for k in 0..<count {
                    let origin = s.url == nil ? (bases.indices.contains(k) ? bases[k] : nil) : (try? ParsedURL.parse(r.url(of: s, at: k)).get().origin)
                    guard let origin, !seen.contains(origin) else { continue }
                    if count > 1 { seen.append(origin) }
                    var use = uses[origin] ?? OriginUse(origin: origin)
                    if k == 0 { use.slices += 1 } else { use.fallbacks += 1 }
                    use.slots = max(use.slots, limits.slotsPerHost)
                    use.streams = use.streams == 0 ? limits.streams : min(use.streams, limits.streams)
                    use.adaptive = use.adaptive || limits.adaptive
                    uses[origin] = use
                }
            }
        }
        return uses.values.sorted { $0.origin < $1.origin }
    }
}
