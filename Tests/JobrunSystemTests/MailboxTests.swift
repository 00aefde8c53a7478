import Dispatch
import JobrunSystem
import JobrunCore
import Synchronization
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

    /// How a consumer waits for its messages: after each batch it takes (the disk worker's and
    /// the state recorder's way), or only when it finds none (the driver's and the engines' way).
    enum Consumer: CaseIterable {
        case waitsAfterEachBatch, waitsWhenEmpty
    }

    /// Producer threads post in bursts, started together, while a consumer thread takes and
    /// waits on a semaphore as the mailbox lets it: every message arrives, and the consumer never
    /// sleeps through one (its waits time out after 5 s only when a wake-up was lost). Posters
    /// either claim the wake-up as they post, or post quietly and claim it once per burst.
    @Test(arguments: Consumer.allCases, [true, false])
    func noMessageIsLostAcrossThreads(consumer: Consumer, claimsAsItPosts: Bool) throws {
        let box = Mailbox<Int>(consumerWaits: consumer == .waitsAfterEachBatch)
        let wake = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let producers = 3
        let bursts = 200
        let burst = 20
        let total = producers * bursts * burst
        let outcome = Mutex<(received: Int, distinct: Int, lost: Bool)>((0, 0, false))
        for p in 0..<producers {
            let failure = DetachedThread.start(name: "mailbox-post") {
                go.wait()
                for b in 0..<bursts {
                    for i in 0..<burst where box.post(((p * bursts) + b) * burst + i, claimingWake: claimsAsItPosts) == .wake { wake.signal() }
                    if !claimsAsItPosts, box.claimWake() { wake.signal() }
                    sched_yield()
                }
            }
            #expect(failure == nil)
        }
        let failure = DetachedThread.start(name: "mailbox-take") {
            var seen = Set<Int>()
            var received = 0
            var lost = false
            while received < total, !lost {
                switch consumer {
                case .waitsAfterEachBatch:
                    lost = wake.wait(timeout: .now() + 5) != .success
                    let taken = box.take(thenWaits: true).messages
                    received += taken.count
                    seen.formUnion(taken)
                case .waitsWhenEmpty:
                    let taken = box.take()
                    received += taken.count
                    seen.formUnion(taken)
                    if taken.isEmpty, received < total, box.mayWait() {
                        lost = wake.wait(timeout: .now() + 5) != .success
                        box.didWait()
                    }
                }
            }
            outcome.withLock { $0 = (received, seen.count, lost) }
            finished.signal()
        }
        #expect(failure == nil)
        for _ in 0..<producers { go.signal() }
        #expect(finished.wait(timeout: .now() + 30) == .success)
        let (received, distinct, lost) = outcome.withLock { $0 }
        #expect(!lost, "the consumer slept through a message")
        #expect(received == total && distinct == total)
    }
}
