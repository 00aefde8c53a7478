import JobrunOutcome
import JobrunPlan
import Testing
@testable import JobrunRun

/// The resource graph as a machine part: dependencies and slice counts in, decisions out, with
/// the driver's part (ending the resources it starts) played by the test.
@Suite struct ResourceGraphTests {
    typealias Decision = ResourceGraph.Decision

    /// Resources named by letter, in plan order; `deps` by name.
    static func graph(_ deps: [String: [String]], count: Int, remaining: [Int]? = nil, planned: [Int: Deferral] = [:]) -> ResourceGraph {
        let names = (0..<count).map { String(UnicodeScalar(UInt8(97 + $0))) }
        return ResourceGraph(
            dependencies: names.map { name in
                (deps[name] ?? []).map { ResourceGraph.Dependency(id: $0, resource: Int($0.unicodeScalars.first?.value ?? 97) - 97) }
            },
            plannedDeferrals: (0..<count).map { planned[$0] },
            remaining: remaining ?? Array(repeating: 1, count: count))
    }

    /// Every decision until none is left, as the driver takes them (from a rescan).
    static func decisions(_ g: inout ResourceGraph) -> [String] {
        g.rescan()
        var out: [String] = []
        while let (r, d) = g.nextDecision() {
            let name = String(UnicodeScalar(UInt8(97 + r)))
            switch d {
            case .skip(let reason): out.append("\(name) skip: \(reason)")
            case .defer(let deferral): out.append("\(name) defer: \(deferral.causes.map(\.detail).joined(separator: ", "))")
            case .start: out.append("\(name) start")
            }
        }
        return out
    }

    static let metered = Deferral(causes: [Deferral.Cause(.metered, "metered network")])

    @Test func independentResourcesStartInPlanOrder() {
        var g = Self.graph([:], count: 3)
        #expect(Self.decisions(&g) == ["a start", "b start", "c start"])
        #expect(Self.decisions(&g).isEmpty, "a resource was decided twice")
        #expect(g.states == [.active, .active, .active])
    }

    /// A dependent waits for its dependency to end, then starts; a failure skips the dependents
    /// of its dependents too, each naming its own dependency.
    @Test func aDependentStartsOnceItsDependencyCompletesAndIsSkippedWhenItFails() {
        var g = Self.graph(["b": ["a"], "c": ["b"]], count: 3)
        #expect(Self.decisions(&g) == ["a start"])
        #expect(!g.isReadyToEnd(0))
        g.sliceDone(of: 0)
        #expect(g.isReadyToEnd(0))
        g.ended(0, as: .complete)
        #expect(Self.decisions(&g) == ["b start"])
        g.sliceDone(of: 1)
        g.ended(1, as: .failed)
        #expect(Self.decisions(&g) == ["c skip: depends on 'b', which did not complete"])
        #expect(g.states[2] == .skipped("depends on 'b', which did not complete"))
    }

    /// A decision that frees an earlier resource is taken on the next pass, after the rest of
    /// this one, as the resources' events have always come.
    @Test func aPassGoesOnBeforeAnEarlierResourceIsDecided() {
        var g = Self.graph(["a": ["b"], "b": ["c"]], count: 4, planned: [2: Self.metered])
        #expect(
            Self.decisions(&g) == [
                "c defer: metered network", "d start", "b defer: depends on 'c', which is deferred", "a defer: depends on 'b', which is deferred",
            ])
    }

    /// A dependency cut short by a stop leaves its dependents waiting (not started, not failed).
    @Test func anUnfinishedDependencyLeavesItsDependentsWaiting() {
        var g = Self.graph(["b": ["a"]], count: 2)
        #expect(Self.decisions(&g) == ["a start"])
        g.sliceDone(of: 0)
        g.ended(0, as: .unfinished)
        #expect(Self.decisions(&g).isEmpty)
        #expect(g.states[1] == .waiting)
    }

    /// With a deferred dependency, a resource with work is deferred with it; one with nothing
    /// left to do starts (and so completes).
    @Test func aDeferredDependencyDefersOnlyWork() {
        var g = Self.graph(["b": ["a"], "c": ["a"]], count: 3, remaining: [1, 1, 0], planned: [0: Self.metered])
        #expect(Self.decisions(&g) == ["a defer: metered network", "b defer: depends on 'a', which is deferred", "c start"])
        #expect(g.isReadyToEnd(2))
        #expect(g.dependencyDeferral(of: 1)?.causes.map(\.reason) == [.dependency])
    }

    /// The plan's deferral holds even before the dependencies have ended.
    @Test func thePlansDeferralComesFirst() {
        var g = Self.graph(["b": ["a"]], count: 2, planned: [1: Self.metered])
        #expect(Self.decisions(&g) == ["a start", "b defer: metered network"])
        #expect(!g.isUndecidedOrActive(1) && g.isUndecidedOrActive(0))
    }

    @Test func anEndingFollowsTheCounts() {
        var counts = ApplyResult.Counts()
        counts.fetched = 3
        #expect(ResourceGraph.ending(counts: counts, total: 3) == .complete)
        counts.deferred = 1
        #expect(ResourceGraph.ending(counts: counts, total: 4) == .deferred)
        counts.skipped = 2
        #expect(ResourceGraph.ending(counts: counts, total: 6) == .unfinished(count: 2, total: 6))
        counts.failed = 1
        #expect(ResourceGraph.ending(counts: counts, total: 7) == .failed(count: 1, total: 7))
    }
}
