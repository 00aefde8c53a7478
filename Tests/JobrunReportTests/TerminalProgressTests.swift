import JobrunCore
import Testing
@testable import JobrunOutcome
@testable import JobrunReport

/// The live display's lines: what they say, measured as the plain line is, and never wider
/// than the terminal, with or without color.
@Suite struct TerminalProgressTests {
    static func progress(sized: Bool = true, active: [String] = ["lesson-a", "lesson-b", "intro"], activeCount: Int? = nil) -> RunProgress {
        var p = RunProgress()
        p.slicesToTransfer = 400
        p.bytesToTransfer = 29 << 20
        p.unsizedToTransfer = sized ? 0 : 3
        p.slicesSettled = 120
        p.bytesSettled = 10 << 20
        p.bytesInFlight = 2 << 20
        p.bytesReceived = 11 << 20
        p.running = 8
        p.retrying = 3
        p.counts.failed = 1
        p.activeResources = active
        p.activeCount = activeCount ?? active.count
        p.elapsed = .seconds(10)
        return p
    }

    static func frame(_ p: RunProgress = progress(), rate: Double = 1_258_291) -> TerminalProgress.Frame {
        TerminalProgress.Frame(progress: p, rate: rate)
    }

    /// SGR sequences removed.
    static func plain(_ line: String) -> String {
        line.replacing(#/\x1B\[[0-9;]*m/#, with: "")
    }

    @Test func theLines() {
        #expect(
            TerminalProgress.lines(Self.frame(), columns: 100, color: false) == [
                " 41% [================>                       ] 12.0 MiB of 29.0 MiB, 1.2 MiB/s, ETA 15 s",
                "120 of 400 slices, 8 running, 3 retrying, 1 failed",
                "under way: lesson-a, lesson-b, intro",
            ])
        // Without every size, by slices and the bytes received; no ETA.
        #expect(
            TerminalProgress.lines(Self.frame(Self.progress(sized: false)), columns: 100, color: false).first
                == " 30% [============>                           ] 13.0 MiB received, 1.2 MiB/s")
        #expect(TerminalProgress.lines(Self.frame(rate: 0), columns: 100, color: false).first?.hasSuffix("29.0 MiB, 0 B/s") == true)
        // While the run waits for the network, how long it has.
        var offline = Self.progress()
        offline.offlineFor = .milliseconds(83_400)
        let lines = TerminalProgress.lines(Self.frame(offline), columns: 100, color: false)
        #expect(lines[1] == "120 of 400 slices, 8 running, 3 retrying, 1 failed, offline 1 min 23 s")
        #expect(lines[0].hasSuffix("12.0 MiB of 29.0 MiB, 1.2 MiB/s"), "no ETA while offline: \(lines[0])")
    }

    /// Every line fits in `columns - 1` cells at every width, and color changes nothing else.
    @Test func neverWiderThanTheTerminal() {
        let frames = [
            Self.frame(),
            Self.frame(Self.progress(sized: false)),
            Self.frame(Self.progress(active: (1...8).map { "resource-with-a-long-name-\($0)" }, activeCount: 30), rate: 3e9),
            Self.frame(Self.progress(active: [], activeCount: 0), rate: 0),
        ]
        for frame in frames {
            for columns in 0...160 {
                let plain = TerminalProgress.lines(frame, columns: columns, color: false)
                let colored = TerminalProgress.lines(frame, columns: columns, color: true)
                #expect(plain.allSatisfy { $0.unicodeScalars.count <= max(0, columns - 1) }, "\(columns): \(plain)")
                #expect(plain.allSatisfy { !$0.contains("\u{1B}") })
                #expect(colored.map(Self.plain) == plain, "\(columns)")
            }
        }
    }

    /// The bar takes the room left, up to its maximum, and is left out below its minimum;
    /// its done part is the fraction done.
    @Test func theBar() throws {
        for columns in 40...140 {
            let line = try #require(TerminalProgress.lines(Self.frame(), columns: columns, color: false).first)
            guard let open = line.firstIndex(of: "["), let close = line.firstIndex(of: "]") else {
                #expect(columns - 1 - line.count < TerminalProgress.minimumBar + 4, "no bar with room for one at \(columns)")
                continue
            }
            let cells = line[line.index(after: open)..<close]
            #expect(cells.count >= TerminalProgress.minimumBar && cells.count <= TerminalProgress.maximumBar)
            #expect(cells.count == TerminalProgress.maximumBar || line.count == columns - 1, "the bar leaves room at \(columns)")
            let done = cells.count { $0 == "=" }
            #expect(done == Int(Self.progress().fraction * Double(cells.count)))
            #expect(cells.dropFirst(done).first == ">")
        }
    }

    @Test func colors() {
        let colored = TerminalProgress.lines(Self.frame(), columns: 100, color: true)
        #expect(colored[0].contains("\u{1B}[32m================>\u{1B}[0m"))
        #expect(colored[1] == "120 of 400 slices, 8 running, \u{1B}[33m3 retrying\u{1B}[0m, \u{1B}[31m1 failed\u{1B}[0m")
        var calm = Self.progress()
        calm.retrying = 0
        calm.counts.failed = 0
        #expect(!TerminalProgress.lines(Self.frame(calm), columns: 100, color: true)[1].contains("\u{1B}"))
    }

    /// Names that fit, then how many more; a count alone when none fits; no line when none.
    @Test func theResourcesUnderWay() {
        let names = (1...8).map { "r\($0)" }
        func line(_ columns: Int, count: Int = 12) -> String? {
            TerminalProgress.resourcesLine(Self.progress(active: names, activeCount: count), columns: columns)?.text
        }
        #expect(line(100) == "under way: r1, r2, r3, r4, r5, r6, r7, r8 and 4 more")
        #expect(line(100, count: 8) == "under way: r1, r2, r3, r4, r5, r6, r7, r8")
        #expect(line(30) == "under way: r1, r2 and 10 more")
        #expect(line(20) == "under way: 12 resources")
        #expect(TerminalProgress.resourcesLine(Self.progress(active: [], activeCount: 0), columns: 100) == nil)
        for columns in 12...80 {
            let text = line(columns) ?? ""
            #expect(text.count <= columns - 1 || text == "under way: 12 resources")
        }
    }

    @Test func linesAreCutNotWrapped() {
        var line = TerminalLine("abc")
        line.append("defg", .red)
        #expect(line.rendered(columns: 6, color: false) == "abcde")
        #expect(line.rendered(columns: 6, color: true) == "abc\u{1B}[31mde\u{1B}[0m")
        #expect(line.rendered(columns: 4, color: true) == "abc")
        #expect(line.rendered(columns: 0, color: true) == "")
        #expect(line.rendered(columns: 80, color: true) == "abc\u{1B}[31mdefg\u{1B}[0m")
    }
}

/// The rate the display shows: a moving average weighted by time.
@Suite struct RateMeterTests {
    /// A steady rate reads as itself, however irregular the samples.
    @Test func aSteadyRate() {
        var meter = RateMeter()
        var ms: Int64 = 0
        for step: Int64 in [100, 250, 30, 1000, 7, 400, 120] {
            ms += step
            meter.add(bytes: ms * 2_000, at: .milliseconds(ms))
            #expect(abs(meter.rate - 2_000_000) < 1)
        }
    }

    /// After a change of pace, the rate moves 1 - 1/e of the way in ``RateMeter/timeConstant``,
    /// whether sampled every 10 ms or every second.
    @Test(arguments: [10, 100, 1000])
    func aChangeOfPace(stepMilliseconds: Int64) {
        var meter = RateMeter()
        meter.add(bytes: 1_000, at: .seconds(1))
        var bytes: Int64 = 1_000
        var ms: Int64 = 1_000
        let end = ms + Int64(RateMeter.timeConstant * 1000)
        while ms < end {
            ms += stepMilliseconds
            bytes += 10 * stepMilliseconds  // 10 000 B/s
            meter.add(bytes: bytes, at: .milliseconds(ms))
        }
        let expected = 1_000 + (10_000 - 1_000) * (1 - exp(-1.0))
        #expect(abs(meter.rate - expected) < 1, "\(meter.rate)")
    }

    @Test func samplesThatDoNotAdvanceAreIgnored() {
        var meter = RateMeter()
        #expect(meter.add(bytes: 500, at: .zero) == 0)
        #expect(meter.add(bytes: 1_000, at: .seconds(2)) == 500)
        #expect(meter.add(bytes: 9_000, at: .seconds(2)) == 500)
        #expect(meter.add(bytes: 0, at: .seconds(3)) < 500)
        #expect(meter.rate >= 0)
    }
}

extension TerminalProgressTests {
    /// Origins in flight, the busiest first, without their scheme and with their limits; as
    /// many as fit, then how many more; a count alone when none fits; no line when none.
    @Test func theOriginsInFlight() {
        var p = Self.progress()
        #expect(TerminalProgress.originsLine(p, columns: 100) == nil)
        p.origins = [
            OriginInFlight(origin: "https://cdn.example", running: 96, limit: 128),
            OriginInFlight(origin: "http://mirror.example:8080", running: 8, limit: 8),
            OriginInFlight(origin: "https://other.example", running: 1, limit: nil),
        ]
        p.originCount = 5
        p.running = 107
        #expect(
            TerminalProgress.originsLine(p, columns: 120)?.text
                == "in flight: cdn.example 96 of 128, mirror.example:8080 8 of 8, other.example 1 and 2 more")
        #expect(TerminalProgress.originsLine(p, columns: 50)?.text == "in flight: cdn.example 96 of 128 and 4 more")
        #expect(TerminalProgress.originsLine(p, columns: 20)?.text == "in flight: 107 at 5 origins")
        #expect(TerminalProgress.lines(Self.frame(p), columns: 120, color: false).last?.hasPrefix("in flight: ") == true)
    }
}
