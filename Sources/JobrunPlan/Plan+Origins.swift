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

        /// `@ https://cdn.example: 412 slices to transfer, 4 at once over HTTP/1.1, up to 128 over HTTP/2 (4
        /// connections of 32 streams)`, and `; adaptive, from 4` when its limit adapts.
        public var line: String {
            var text = "@ \(origin): \(slices) slice\(slices == 1 ? "" : "s") to transfer, \(slots) at once over HTTP/1.1"
            if streams > 1 {
                text += ", up to \(requestsInFlight) over HTTP/2 (\(slots) connection\(slots == 1 ? "" : "s") of \(streams) streams)"
            }
            if adaptive { text += "; adaptive, from \(min(ConcurrencyLimits.adaptiveStart, slots * streams))" }
            return text
        }
    }

    /// The origins the run will send requests to (of the slices to fetch, resume or refetch), by
    /// origin; a redirect's target is not known before its answer.
    public var origins: [OriginUse] {
        var uses: [String: OriginUse] = [:]
        for entry in entries {
            let r = entry.resource
            let limits = r.settings.concurrency
            let base = r.baseURL.flatMap { try? ParsedURL.parse($0).get().origin }
            for (s, d) in zip(r.slices, entry.decisions) {
                switch d.action {
                case .fetch, .resume, .refetch: break
                case .upToDate, .deferred: continue
                }
                let origin = s.url == nil ? base : (try? ParsedURL.parse(r.url(of: s)).get().origin)
                guard let origin else { continue }
                var use = uses[origin] ?? OriginUse(origin: origin)
                use.slices += 1
                use.slots = max(use.slots, limits.slotsPerHost)
                use.streams = use.streams == 0 ? limits.streams : min(use.streams, limits.streams)
                use.adaptive = use.adaptive || limits.adaptive
                uses[origin] = use
            }
        }
        return uses.values.sorted { $0.origin < $1.origin }
    }
}
