import JobrunCore
import JobrunOutcome

extension TerminalProgress {
    /// The bar is left out rather than drawn with fewer cells than this.
    static let minimumBar = 10
    static let maximumBar = 40

    /// The display's lines for a terminal `columns` wide, each cut to fit (``TerminalLine``):
    ///
    ///      42% [================>                       ] 12.3 MiB of 29.0 MiB, 1.2 MiB/s, ETA 14 s
    ///     120 of 400 slices, 8 running, 3 retrying, 1 failed, offline 42 s
    ///     under way: lesson-a, lesson-b, intro and 5 more
    ///     in flight: cdn.example 96 of 128, mirror.example:8080 8 of 8
    ///
    /// The percent, bytes and ETA are measured as for ``PlainProgress`` (by bytes when every size
    /// is declared, in flight included; otherwise by slices, with the bytes received). The bar
    /// takes the room the first line leaves, and is left out below ``minimumBar`` cells; the
    /// third line, there while resources are under way, names those that fit and counts the rest;
    /// the last, while requests are in flight, has them by origin (the busiest first, with each
    /// origin's limit: its slots' transfers, or its adaptive limit), as many as fit.
    /// With `color`, the bar's done part is green, retrying slices and the time offline (while the
    /// run waits for the network) yellow, and failed ones red.
    public static func lines(_ frame: Frame, columns: Int, color: Bool) -> [String] {
        [
            overallLine(frame, columns: columns), slicesLine(frame.progress), resourcesLine(frame.progress, columns: columns),
            originsLine(frame.progress, columns: columns),
        ]
        .compactMap { $0?.rendered(columns: columns, color: color) }
    }

    static func overallLine(_ frame: Frame, columns: Int) -> TerminalLine {
        let p = frame.progress
        let percent = String(Int(p.fraction * 100))
        var details: String
        if let remaining = p.bytesRemaining {
            details = "\(ByteCount(p.bytesToTransfer - remaining)) of \(ByteCount(p.bytesToTransfer))"
        } else {
            details = "\(ByteCount(p.bytesArrived)) received"
        }
        details += ", \(ByteCount(Int64(frame.rate)))/s"
        if let eta = PlainProgress.eta(p, rate: frame.rate) { details += ", ETA \(eta)" }

        var line = TerminalLine(String(repeating: " ", count: max(0, 3 - percent.count)) + percent + "%")
        // Room for "[", the cells, "]" and a space either side; the last column stays free.
        let cells = min(Self.maximumBar, columns - 1 - line.width - details.count - 4)
        if cells >= Self.minimumBar {
            let done = min(cells, Int(p.fraction * Double(cells)))
            let head = done > 0 && done < cells ? ">" : ""
            line.append(" [")
            line.append(String(repeating: "=", count: done) + head, .green)
            line.append(String(repeating: " ", count: cells - done - head.count) + "]")
        }
        line.append(" " + details)
        return line
    }

    static func slicesLine(_ p: RunProgress) -> TerminalLine {
        var line = TerminalLine("\(p.slicesSettled) of \(p.slicesToTransfer) slices, \(p.running) running, ")
        line.append("\(p.retrying) retrying", p.retrying > 0 ? .yellow : nil)
        line.append(", ")
        line.append("\(p.counts.failed) failed", p.counts.failed > 0 ? .red : nil)
        if let offline = p.offlineFor {
            line.append(", ")
            line.append("offline \(PlainProgress.duration(seconds: offline.components.seconds))", .yellow)
        }
        return line
    }

    /// `under way: a, b and 3 more`: as many names as fit in `columns`; `nil` when none is.
    static func resourcesLine(_ p: RunProgress, columns: Int) -> TerminalLine? {
        guard p.activeCount > 0 else { return nil }
        let label = "under way: "
        func text(naming k: Int) -> String {
            let more = p.activeCount - k
            guard k > 0 else { return label + "\(more) resource\(more == 1 ? "" : "s")" }
            return label + p.activeResources.prefix(k).joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
        }
        let named = min(p.activeResources.count, p.activeCount)
        let fitting = (0...named).reversed().first { text(naming: $0).unicodeScalars.count <= columns - 1 } ?? 0
        return TerminalLine(text(naming: fitting))
    }
}

extension TerminalProgress {
    /// `in flight: cdn.example 96 of 128, mirror.example:8080 8 of 8 and 2 more`: origins without
    /// their scheme, as many as fit in `columns`; `nil` when nothing is in flight.
    static func originsLine(_ p: RunProgress, columns: Int) -> TerminalLine? {
        guard !p.origins.isEmpty else { return nil }
        let label = "in flight: "
        let shown = p.origins.map { o in
            let host = o.origin.split(separator: "://", maxSplits: 1).last.map(String.init) ?? o.origin
            return "\(host) \(o.running)" + (o.limit.map { " of \($0)" } ?? "")
        }
        func text(naming k: Int) -> String {
            let more = max(p.originCount, p.origins.count) - k
            guard k > 0 else { return label + "\(p.running) at \(more) origin\(more == 1 ? "" : "s")" }
            return label + shown.prefix(k).joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
        }
        let fitting = (0...shown.count).reversed().first { text(naming: $0).unicodeScalars.count <= columns - 1 } ?? 0
        return TerminalLine(text(naming: fitting))
    }
}
