import Testing
@testable import JobrunOutcome

/// The observers' hub: every event to every observer in order, nothing after the end, and the
/// shortest progress interval any observer asks for.
@Suite struct RunEventsTests {
    final class Recorder: RunObserver {
        var names: [String] = []
        let progressInterval: Duration?
        init(every: Duration? = nil) { progressInterval = every }
        func observe(_ event: RunEvent) {
            switch event {
            case .runStarted: names.append("start")
            case .resourceStarted(let id): names.append("resource \(id)")
            case .runEnded: names.append("end")
            default: names.append("other")
            }
        }
    }

    static let end = RunEvent.runEnded(RunEnd(exitStatus: 0, stopReason: nil, counts: [], summaryLine: "", elapsed: .zero))

    @Test func everyObserverSeesEveryEventInOrderAndNothingAfterTheEnd() {
        let a = Recorder()
        let b = Recorder(every: .seconds(30))
        let events = RunEvents([a, b])
        events.emit(.runStarted(RunStart(command: "apply", runID: "x", arguments: [], manifestsDigest: nil)))
        events.emit(.resourceStarted(id: "r"))
        events.emit(Self.end)
        events.emit(.resourceStarted(id: "late"))
        events.emit(Self.end)
        #expect(a.names == ["start", "resource r", "end"])
        #expect(b.names == a.names)
        #expect(events.hasEnded)
    }

    @Test func progressComesAsOftenAsTheMostEagerObserverAsks() {
        let events = RunEvents([Recorder()])
        #expect(events.progressInterval == nil)
        events.add(Recorder(every: .seconds(30)))
        events.add(Recorder(every: .milliseconds(100)))
        events.add(Recorder(every: .seconds(5)))
        #expect(events.progressInterval == .milliseconds(100))
    }

    /// By bytes when every size is known (bytes in flight included), by slices otherwise.
    @Test func theFractionDone() {
        var p = RunProgress()
        #expect(p.fraction == 1)
        p.slicesToTransfer = 4
        p.bytesToTransfer = 1000
        p.bytesSettled = 250
        p.bytesInFlight = 250
        #expect(p.fraction == 0.5 && p.bytesRemaining == 500)
        p.unsizedToTransfer = 1
        p.slicesSettled = 1
        #expect(p.fraction == 0.25 && p.bytesRemaining == nil)
    }
}
