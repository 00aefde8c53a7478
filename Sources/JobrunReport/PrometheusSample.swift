/// One sample of a file in the Prometheus text format: what a metrics file carries over from the
/// one it replaces (``MetricsReport``). The reader takes any text: a line it cannot read is
/// passed over, never trusted.
public struct PrometheusSample: Sendable, Hashable {
    public var name: String
    public var labels: [String: String]
    public var value: Double

    public init(name: String, labels: [String: String], value: Double) {
        self.name = name
        self.labels = labels
        self.value = value
    }

    /// Samples at most (a larger file is read no further).
    static let maximumSamples = 100_000

    /// The samples of `bytes` (comments and unreadable lines passed over).
    public static func read(_ bytes: [UInt8]) -> [PrometheusSample] {
        var samples: [PrometheusSample] = []
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            guard samples.count < maximumSamples else { break }
            if let sample = parse(line) { samples.append(sample) }
        }
        return samples
    }

    /// `name{label="value",…} value`, or `nil`.
    static func parse(_ line: ArraySlice<UInt8>) -> PrometheusSample? {
        var i = line.startIndex
        func isNameByte(_ b: UInt8, first: Bool) -> Bool {
            (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")) || b == UInt8(ascii: "_")
                || b == UInt8(ascii: ":") || (!first && b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
        }
        func name() -> String? {
            let start = i
            while i < line.endIndex, isNameByte(line[i], first: i == start) { i += 1 }
            return i > start ? String(decoding: line[start..<i], as: UTF8.self) : nil
        }
        guard let metric = name() else { return nil }
        var labels: [String: String] = [:]
        if i < line.endIndex, line[i] == UInt8(ascii: "{") {
            i += 1
            while i < line.endIndex, line[i] != UInt8(ascii: "}") {
                guard let key = name(), i < line.endIndex, line[i] == UInt8(ascii: "="), i + 1 < line.endIndex, line[i + 1] == UInt8(ascii: "\"")
                else { return nil }
                i += 2
                var value: [UInt8] = []
                var closed = false
                while i < line.endIndex {
                    let b = line[i]
                    i += 1
                    if b == UInt8(ascii: "\"") {
                        closed = true
                        break
                    }
                    if b == UInt8(ascii: "\\") {
                        guard i < line.endIndex else { return nil }
                        let escaped = line[i]
                        i += 1
                        value.append(escaped == UInt8(ascii: "n") ? UInt8(ascii: "\n") : escaped)
                    } else {
                        value.append(b)
                    }
                }
                guard closed else { return nil }
                labels[key] = String(decoding: value, as: UTF8.self)
                if i < line.endIndex, line[i] == UInt8(ascii: ",") { i += 1 }
            }
            guard i < line.endIndex else { return nil }
            i += 1
        }
        guard i < line.endIndex, line[i] == UInt8(ascii: " ") else { return nil }
        let rest = line[(i + 1)...].split(separator: UInt8(ascii: " "), maxSplits: 1, omittingEmptySubsequences: true)
        guard let first = rest.first, first.count <= 32, let value = Double(String(decoding: first, as: UTF8.self)) else { return nil }
        return PrometheusSample(name: metric, labels: labels, value: value)
    }
}
