import JobrunOutcome
import Testing
@testable import JobrunRun

/// The run's phase as a machine part: requests and full disks in, changes out.
@Suite struct RunPhaseTests {
    /// The first request stops the run; another one changes nothing, but a signal replaces the
    /// deadline's stop (the run then ends as interrupted).
    @Test func theFirstStopStandsButASignalOutranksTheDeadline() {
        var phase = RunPhase()
        #expect(phase.request(.signal(2)) == .stop(.signal(2)))
        #expect(phase.request(.signal(15)) == .none && phase.request(.deadline) == .none)
        #expect(phase.stopReason == .signal(2) && phase.isStopping)

        var late = RunPhase()
        #expect(late.request(.deadline) == .stop(.deadline))
        #expect(late.request(.deadline) == .none)
        #expect(late.request(.signal(15)) == .reason(.signal(15)))
        #expect(late.request(.signal(2)) == .none)
        #expect(late.stopReason == .signal(15))

        var offline = RunPhase()
        #expect(offline.request(.offline) == .stop(.offline))
        #expect(offline.request(.signal(2)) == .none && offline.stopReason == .offline)
    }

    /// A gate that holds work back for the rest of the run names the run's end without stopping
    /// it; a stop requested later is a stop, with its own reason.
    @Test func aGateHoldingWorkBackEndsTheRunWithoutStoppingIt() {
        var phase = RunPhase()
        phase.heldBack(for: .deadline)
        #expect(phase.stopReason == .deadline && !phase.isStopping)
        phase.heldBack(for: .offline)
        #expect(phase.stopReason == .deadline, "the first reason stands")
        #expect(phase.request(.signal(2)) == .stop(.signal(2)))
        #expect(phase.stopReason == .signal(2))

        // The gate first, then the cutoff: the run stops at its deadline.
        var cutoff = RunPhase()
        cutoff.heldBack(for: .deadline)
        #expect(cutoff.request(.deadline) == .stop(.deadline) && cutoff.isStopping)
    }

    @Test func theSecondFullDiskStartsNothing() {
        var phase = RunPhase()
        #expect(!phase.hasFilledDisk && !phase.startsNothing)
        phase.diskFilled()
        #expect(phase.hasFilledDisk && !phase.startsNothing)
        phase.diskFilled()
        #expect(phase.startsNothing && !phase.isStopping && phase.stopReason == nil)
    }
}
