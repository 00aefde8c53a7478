import Dispatch
import JobrunSystem
import JobrunCore
import Testing

/// The mailbox every inbox of the run uses: one wake-up per wait, whatever the number of
/// messages posted meanwhile, and none lost.
@Suite struct MailboxTests {
    /// Only the first message after the consumer says it waits claims the wake-up; a busy
    /// consumer is never woken; a quiet post leaves it to one claim.
    @Test func oneWakeUpPerWait() {
        let box = Mailbox<Int>()
        #expect(box.post(1) == .queued, "the consumer is busy")
        #expect(!box.mayWait(), "a message waits: no sleeping")
        #expect(box.take() == [1])
        #expect(box.mayWait())
        #expect(box.post(2) == .wake && box.post(3) == .queued)
        #expect(box.take() == [2, 3])
        #expect(box.mayWait())
        #expect(box.post(4, claimingWake: false) == .queued && box.post(5, claimingWake: false) == .queued)
        #expect(box.claimWake() && !box.claimWake(), "claimed once")
        box.didWait()
        #expect(box.take() == [4, 5] && !box.claimWake(), "nothing to wake for")
    }

    /// A consumer that waits once it has handled a batch (`take(thenWaits:)`) is woken by the
    /// first message after the take; a closed mailbox refuses messages and tells the consumer.
    @Test func aWaitingConsumerAndClosing() {
        let box = Mailbox<Int>(consumerWaits: true)
        #expect(box.post(1) == .wake)
        #expect(box.post(2) == .queued)
        let first = box.take(thenWaits: true)
        #expect(first.messages == [1, 2] && !first.isClosed)
        #expect(box.post(3) == .wake)
        #expect(box.close(after: 4) && !box.close())
        #expect(box.post(5) == .refused && box.isClosed)
        let last = box.take(thenWaits: true)
        #expect(last.messages == [3, 4] && last.isClosed)
    }

    /// Producers on several threads, a consumer that sleeps on a semaphore whenever the mailbox
    /// lets it: every message arrives.
    @Test func noMessageIsLostAcrossThreads() async {
        let box = Mailbox<Int>(consumerWaits: true)
        let wake = DispatchSemaphore(value: 0)
        let producers = 4
        let each = 5_000
        await withTaskGroup(of: Void.self) { group in
            for p in 0..<producers {
                group.addTask {
                    for i in 0..<each where box.post(p * each + i) == .wake { wake.signal() }
                }
            }
            group.addTask {
                var received = Set<Int>()
                var sleeps = 0
                while received.count < producers * each {
                    // A wake-up is never lost, so this wait ends; the timeout only bounds a bug.
                    guard wake.wait(timeout: .now() + 60) == .success else { break }
                    sleeps += 1
                    for m in box.take(thenWaits: true).messages { received.insert(m) }
                }
                #expect(received.count == producers * each, "after \(sleeps) wake-ups")
            }
        }
    }
}
