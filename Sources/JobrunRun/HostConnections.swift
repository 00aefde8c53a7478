import JobrunManifest

/// How many connections libcurl may keep to one host (`CURLMOPT_MAX_HOST_CONNECTIONS`), per
/// engine. The scheduler decides what runs; this limit only keeps libcurl from opening more
/// connections than the slots stand for.
enum HostConnections {
    /// Without a proxy, a host is an origin and its connections are its slots: the largest
    /// `per_host`. So an HTTP/2 origin whose server takes fewer streams than `streams` gets no
    /// more connections; its surplus waits in libcurl for a stream. Through a proxy every origin
    /// shares the proxy's host, whose HTTP/1.1 transfers may be as many as `total`: waiting in
    /// libcurl, they would count against their connect timeout.
    static func limit(for limits: [ConcurrencyLimits], environment: (String) -> String?) -> Int {
        let most = limits.isEmpty ? [ConcurrencyLimits()] : limits
        return usesProxy(environment) ? most.map(\.total).max() ?? 1 : most.map(\.perHost).max() ?? 1
    }

    /// Whether libcurl takes a proxy from the environment (it reads `http_proxy` in lower case
    /// only, the others in either).
    static func usesProxy(_ environment: (String) -> String?) -> Bool {
        ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"].contains { !(environment($0) ?? "").isEmpty }
    }
}
