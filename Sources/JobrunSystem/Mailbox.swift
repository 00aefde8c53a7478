public import Synchronization

/// Messages from any thread to one consumer thread, with coalesced wake-ups. The consumer says
/// when it is about to wait (``mayWait()``, or ``take(thenWaits:)`` for a thread that waits
/// once it has handled what it took); only the first message posted after that has to wake it,
/// and the messages posted meanwhile ride on that wake-up. How a consumer is woken is its own (a
/// semaphore, `curl_multi_wakeup`): the mailbox only says when.
public final class Mailbox<Message: Sendable>: Sendable {
    // Inlinable, so that each module's use is specialized for its message type: an
    // unspecialized append and take per message cost more than the lock.
    @usableFromInline
    struct Box {
        @usableFromInline var messages: [Message] = []
        /// The consumer waits, or is about to, and nobody has claimed its wake-up yet.
        @usableFromInline var isWaiting: Bool
        @usableFromInline var isClosed = false

        @usableFromInline
        init(isWaiting: Bool) {
            self.isWaiting = isWaiting
        }
    }

    @usableFromInline
    let box: Mutex<Box>

    /// `consumerWaits`: the consumer starts by waiting for its first wake-up.
    @inlinable
    public init(consumerWaits: Bool = false) {
        box = Mutex(Box(isWaiting: consumerWaits))
    }

    /// What became of a posted message.
    public enum Posted: Sendable, Equatable {
        /// Queued; the consumer is busy or already being woken.
        case queued
        /// Queued, and the poster must wake the consumer.
        case wake
        /// Refused: the mailbox is closed.
        case refused
    }

    /// Posts `message`; with `claimingWake` false the poster leaves the wake-up to a later
    /// ``claimWake()`` (a producer that wakes once per turn of its own loop, not per message).
    @inlinable @discardableResult
    public func post(_ message: Message, claimingWake: Bool = true) -> Posted {
        box.withLock { box in
            guard !box.isClosed else { return .refused }
            box.messages.append(message)
            guard claimingWake, box.isWaiting else { return .queued }
            box.isWaiting = false
            return .wake
        }
    }

    /// Whether the caller must wake the consumer for the messages waiting: once, while it waits.
    @inlinable
    public func claimWake() -> Bool {
        box.withLock { box in
            guard box.isWaiting, !box.messages.isEmpty else { return false }
            box.isWaiting = false
            return true
        }
    }

    /// The consumer takes every message.
    @inlinable
    public func take() -> [Message] {
        take(thenWaits: false).messages
    }

    /// The consumer takes every message and whether the mailbox is closed; `thenWaits`: it will
    /// wait for a wake-up once it has handled them, so the next message must wake it.
    @inlinable
    public func take(thenWaits: Bool) -> (messages: [Message], isClosed: Bool) {
        box.withLock { box in
            let taken = box.messages
            box.messages = []
            if thenWaits { box.isWaiting = true }
            return (taken, box.isClosed)
        }
    }

    /// The consumer is about to wait: `true` when no message is there, and then the next one
    /// posted wakes it; checked and set in one critical section with the posters' append.
    @inlinable
    public func mayWait() -> Bool {
        box.withLock { box in
            box.isWaiting = box.messages.isEmpty
            return box.isWaiting
        }
    }

    /// The consumer's wait has ended.
    @inlinable
    public func didWait() {
        box.withLock { $0.isWaiting = false }
    }

    /// Closes the mailbox, after `last` when given: later posts are refused. `true` for the first
    /// close, whose caller wakes the consumer so that it sees it.
    @inlinable @discardableResult
    public func close(after last: Message? = nil) -> Bool {
        box.withLock { box in
            guard !box.isClosed else { return false }
            if let last { box.messages.append(last) }
            box.isClosed = true
            box.isWaiting = false
            return true
        }
    }

    @inlinable
    public var isClosed: Bool { box.withLock { $0.isClosed } }
}
