import Testing
@testable import JobrunFetch

/// The token bucket's rules (``RateBudget``), on a clock the tests move by hand.
@Suite struct RateBudgetTests {
    let start = ContinuousClock.now

    func at(_ milliseconds: Int64) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    // `#expect` cannot call a mutating method.
    func take(_ budget: inout RateBudget, _ count: Int, at now: ContinuousClock.Instant) -> Bool { budget.take(count, at: now) }
    func hasBytes(_ budget: inout RateBudget, at now: ContinuousClock.Instant) -> Bool { budget.hasBytes(at: now) }
    func instant(_ budget: inout RateBudget, at now: ContinuousClock.Instant) -> ContinuousClock.Instant { budget.instantWithBytes(at: now) }

    @Test func startsFullAndRefusesOnceSpent() {
        var budget = RateBudget(bytesPerSecond: 1000, capacity: 300, now: at(0))
        #expect(take(&budget, 200, at: at(0)))
        #expect(take(&budget, 100, at: at(0)))
        #expect(budget.balance == 0)
        #expect(!take(&budget, 1, at: at(0)))
        #expect(!hasBytes(&budget, at: at(0)))
    }

    @Test func refillsAtTheRate() {
        var budget = RateBudget(bytesPerSecond: 1000, capacity: 300, now: at(0))
        #expect(take(&budget, 300, at: at(0)))
        #expect(hasBytes(&budget, at: at(1)))
        #expect(abs(budget.balance - 1) < 1e-6)
        #expect(take(&budget, 1, at: at(1)))
        _ = budget.hasBytes(at: at(101))
        #expect(abs(budget.balance - 100) < 1e-6)
    }

    /// The burst: idle time never saves up more than `capacity`.
    @Test func neverHoldsMoreThanItsCapacity() {
        var budget = RateBudget(bytesPerSecond: 1000, capacity: 300, now: at(0))
        _ = budget.hasBytes(at: at(60_000))
        #expect(budget.balance == 300)
        #expect(take(&budget, 10, at: at(60_000)))
        _ = budget.hasBytes(at: at(61_000))
        #expect(budget.balance == 300)
    }

    /// A piece larger than the balance is taken whole, and paid back before anything else.
    @Test func borrowsAWholePieceAndPaysItBack() {
        var budget = RateBudget(bytesPerSecond: 1000, capacity: 300, now: at(0))
        #expect(take(&budget, 250, at: at(0)))
        #expect(take(&budget, 5000, at: at(0)))
        #expect(abs(budget.balance + 4950) < 1e-6)
        #expect(!take(&budget, 1, at: at(4950)))
        #expect(take(&budget, 1, at: at(4951)))
    }

    @Test func saysWhenItWillHaveBytesAgain() {
        var budget = RateBudget(bytesPerSecond: 1000, capacity: 300, now: at(0))
        #expect(instant(&budget, at: at(0)) == at(0))
        #expect(take(&budget, 300 + 499, at: at(0)))
        // 499 bytes owed, and one more byte to have: half a second.
        #expect(instant(&budget, at: at(0)) == at(500))
        #expect(instant(&budget, at: at(200)) == at(500))
        #expect(!hasBytes(&budget, at: at(498)))
        #expect(hasBytes(&budget, at: at(500)))
        #expect(instant(&budget, at: at(500)) == at(500))
    }

    /// The clock never goes back for the budget: an earlier instant refills nothing.
    @Test func anEarlierInstantRefillsNothing() {
        var budget = RateBudget(bytesPerSecond: 1000, capacity: 300, now: at(100))
        #expect(take(&budget, 300, at: at(100)))
        #expect(!hasBytes(&budget, at: at(50)))
        #expect(hasBytes(&budget, at: at(101)))
    }

    @Test func theBurstIsATenthOfASecondAndAtLeastOneReceiveBuffer() {
        #expect(RateBudget.capacity(forRate: 1 << 20) == 104_857)
        #expect(RateBudget.capacity(forRate: 1000) == 16 << 10)
        #expect(RateBudget.capacity(forRate: 1 << 30) == (1 << 30) / 10)
    }

    /// Consumers that take a piece as soon as the budget allows (as paused transfers resumed at
    /// ``RateBudget/instantWithBytes(at:)`` do) get the rate over any long interval: never more
    /// than the rate's share plus the burst and one piece, never less than the share less one
    /// piece.
    @Test(arguments: [(Int64(1 << 20), 16_384), (1 << 20, 100_000), (8192, 16_384), (50_000_000, 524_288), (1000, 1)])
    func greedyConsumersGetTheRate(rate: Int64, piece: Int) {
        let capacity = RateBudget.capacity(forRate: rate)
        var budget = RateBudget(bytesPerSecond: rate, capacity: capacity, now: at(0))
        let seconds: Int64 = 10
        var now = at(0)
        var taken: Int64 = 0
        var takes = 0
        while now < at(seconds * 1000) {
            if budget.take(piece, at: now) {
                taken += Int64(piece)
                takes += 1
            } else {
                now = budget.instantWithBytes(at: now)
            }
        }
        let share = rate * seconds
        #expect(taken <= share + capacity + Int64(piece), "\(taken) in \(seconds) s at \(rate) B/s, \(takes) takes")
        #expect(taken >= share - Int64(piece), "\(taken) in \(seconds) s at \(rate) B/s, \(takes) takes")
    }
}
