import JobrunOutcome
import Testing
@testable import JobrunRun

/// Which URL a slice with several goes to after each failure: told failures and which origins
/// take work (`usable`) or were not given up on (`alive`), asked where next. No network, no clock.
@Suite struct OriginChoiceTests {
    typealias Step = OriginChoice.Step
    static let http500 = AttemptFailure(kind: .http, status: 500, message: "HTTP 500", isTransient: true)
    static let http404 = AttemptFailure(kind: .http, status: 404, message: "HTTP 404", isTransient: false)
    static let mismatch = AttemptFailure(kind: .checksumMismatch, message: "sha256 mismatch", isTransient: true)
    static let diskFull = AttemptFailure(kind: .diskFull, message: "no space left", isTransient: false)
    static let all3: UInt64 = 0b111

    /// Job 0's steps after each of `failures` (`usable`, and `alive`: every URL unless given),
    /// each taken as the machine takes it.
    static func steps(_ choice: inout OriginChoice, _ failures: [(AttemptFailure, usable: UInt64)], alive: UInt64 = all3) -> [Step] {
        failures.map { failure, usable in
            let step = choice.failed(0, failure, usable: usable, alive: alive)
            switch step {
            case .failover(let k), .nextRound(let k): choice.move(0, to: k)
            case .stays, .exhausted: break
            }
            return step
        }
    }

    @Test func aSliceAtItsFirstURLCostsNothing() {
        let choice = OriginChoice()
        #expect(choice.current(7) == 0 && choice.failures(7).isEmpty && choice.standings.isEmpty)
    }

    @Test func eachFailureMovesOnToTheNextUntriedURLThenANewRound() {
        var choice = OriginChoice()
        let steps = Self.steps(&choice, [(Self.http500, Self.all3), (Self.mismatch, Self.all3), (Self.http500, Self.all3), (Self.http500, Self.all3)])
        // Every URL failed in the first round, each for a while only: the next starts at the first.
        #expect(steps == [.failover(to: 1), .failover(to: 2), .nextRound(at: 0), .failover(to: 1)])
        #expect(choice.current(0) == 1)
        #expect(choice.failures(0).map(\.url) == [0, 1, 2, 0])
        #expect(choice.failures(0).map(\.failure) == [Self.http500, Self.mismatch, Self.http500, Self.http500])
    }

    @Test func theURLStaysUntilTheRunTakesTheStep() {
        var choice = OriginChoice()
        #expect(choice.failed(0, Self.http500, usable: Self.all3, alive: Self.all3) == .failover(to: 1))
        #expect(choice.current(0) == 0, "a refused retry leaves the slice where its last attempt went")
    }

    @Test func aFailureForGoodIsNeverTriedAgainForThatSlice() {
        var choice = OriginChoice()
        let steps = Self.steps(
            &choice, [(Self.http404, Self.all3), (Self.http500, Self.all3), (Self.http500, Self.all3), (Self.http404, Self.all3), (Self.http404, Self.all3)])
        // The new round skips URL 0, which answered 404.
        #expect(steps == [.failover(to: 1), .failover(to: 2), .nextRound(at: 1), .failover(to: 2), .exhausted])
        #expect(choice.current(1) == 0, "another slice is judged alone")
    }

    @Test func anOriginThatTakesNoWorkIsTriedLastAndOneGivenUpOnNever() {
        var choice = OriginChoice()
        // URL 1's breaker is open: passed over while URL 2 is untried, tried before a new round.
        let open = Self.steps(&choice, [(Self.http500, 0b101), (Self.http500, 0b101), (Self.http500, 0b101)])
        #expect(open == [.failover(to: 2), .failover(to: 1), .nextRound(at: 0)])
        // Every breaker open: the slice waits for a probe, it does not fail.
        var waiting = OriginChoice()
        #expect(Self.steps(&waiting, [(Self.http500, 0), (Self.http500, 0)], alive: 0b011) == [.failover(to: 1), .nextRound(at: 0)])
        // Given up on (not alive): never.
        var gone = OriginChoice()
        #expect(Self.steps(&gone, [(Self.http500, 0b001), (Self.http404, 0b001)], alive: 0b001) == [.nextRound(at: 0), .exhausted])
    }

    @Test func aFailureOnThisSideStaysAtItsURL() {
        var choice = OriginChoice()
        #expect(Self.steps(&choice, [(Self.diskFull, Self.all3)]) == [.stays])
        #expect(choice.current(0) == 0 && choice.failures(0).count == 1)
    }

    @Test func aSliceWaitingForAnOriginThatTakesNoWorkMovesWithoutAFailure() {
        var choice = OriginChoice()
        let moves = [Self.all3, 0b110, 0b000].map { choice.place(0, usable: $0, alive: Self.all3) }
        // Its own takes work; then it moves to URL 1; with nowhere better it stays there.
        #expect(moves == [false, true, false])
        #expect(choice.current(0) == 1 && choice.failures(0).isEmpty)
        // Its own given up on, none usable: to the first alive one (its probes will come).
        #expect(choice.place(0, usable: 0, alive: 0b100) && choice.current(0) == 2)
        // A URL failed for good is no place to move to.
        _ = choice.failed(1, Self.http404, usable: Self.all3, alive: Self.all3)
        choice.move(1, to: 1)
        let moved = choice.place(1, usable: 0b001, alive: Self.all3)
        #expect(choice.current(1) == 1 && !moved)
        choice.forget(1)
        #expect(choice.current(1) == 0)
    }
}
