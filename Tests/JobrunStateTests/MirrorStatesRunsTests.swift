import JobrunCore
import JobrunTestSupport
import Synchronization
import Testing
@testable import JobrunState

/// The runs `status` lists: read back with their counts, merged across the roots' stores, one
/// line per run id, newest first.
@Suite struct MirrorStatesRunsTests {
    final class Warnings: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func add(_ line: String) { lines.withLock { $0.append(line) } }
    }

    @Test func aRunIsReadBackWithItsCounts() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let store = try StateStore(root: try dir.makeDirectory("mirror"))
        try store.recordRunStart(runID: "r1", command: "apply", startedAtMilliseconds: 10)
        try store.recordRunEnd(
            runID: "r1", endedAtMilliseconds: 25, stopReason: nil, exitStatus: 0, counts: [("fetched", 3), ("up_to_date", 0), ("bytes_transferred", 1 << 40)])
        try store.recordRunStart(runID: "r2", command: "verify", startedAtMilliseconds: 30)
        let runs = try store.lastRuns(limit: 10)
        #expect(
            runs == [
                StateStore.Run(runID: "r2", command: "verify", startedAtMilliseconds: 30),
                StateStore.Run(
                    runID: "r1", command: "apply", startedAtMilliseconds: 10, endedAtMilliseconds: 25, exitStatus: 0,
                    counts: [.init(name: "fetched", value: 3), .init(name: "up_to_date", value: 0), .init(name: "bytes_transferred", value: 1 << 40)]),
            ])
        #expect(try store.lastRuns(limit: 1).map(\.runID) == ["r2"])
        #expect(try store.lastRuns(limit: 0).isEmpty)
        // A word that is not `name=value` is left out rather than misread.
        #expect(StateStore.counts("a=1 junk b=x c=-2") == [.init(name: "a", value: 1), .init(name: "c", value: -2)])
    }

    /// A run that wrote to two roots is in both stores: listed once, with its end when either
    /// store has it; the rest newest first (ties by run id), cut to the limit.
    @Test func runsOfSeveralRootsAreMergedNewestFirst() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let one = try dir.makeDirectory("one")
        let two = try dir.makeDirectory("two")
        do {
            let a = try StateStore(root: one)
            let b = try StateStore(root: two)
            for store in [a, b] { try store.recordRunStart(runID: "both", command: "apply", startedAtMilliseconds: 100) }
            try b.recordRunEnd(runID: "both", endedAtMilliseconds: 150, stopReason: "deadline", exitStatus: 75, counts: [])
            try a.recordRunStart(runID: "old", command: "verify", startedAtMilliseconds: 50)
            try b.recordRunStart(runID: "new-b", command: "plan", startedAtMilliseconds: 200)
            try a.recordRunStart(runID: "new-a", command: "plan", startedAtMilliseconds: 200)
        }
        let warnings = Warnings()
        let states = MirrorStates(roots: [one, two], access: .existing, warn: warnings.add)
        let runs = states.lastRuns(limit: 10)
        #expect(runs.map(\.runID) == ["new-b", "new-a", "both", "old"])
        #expect(runs[2].endedAtMilliseconds == 150 && runs[2].exitStatus == 75 && runs[2].stopReason == "deadline")
        #expect(states.lastRuns(limit: 2).map(\.runID) == ["new-b", "new-a"])
        #expect(states.lastRuns(limit: 0).isEmpty)
        #expect(warnings.all.isEmpty)
        // The merge does not depend on which store is read first.
        let ended = StateStore.Run(runID: "x", command: "apply", startedAtMilliseconds: 1, endedAtMilliseconds: 2, exitStatus: 0)
        let open = StateStore.Run(runID: "x", command: "apply", startedAtMilliseconds: 1)
        #expect(MirrorStates.merge([[ended], [open]], limit: 5) == [ended])
        #expect(MirrorStates.merge([[open], [ended]], limit: 5) == [ended])
    }
}
