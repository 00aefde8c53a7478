import Dispatch
import Synchronization
import JobrunCore
import JobrunOutcome
import JobrunReport

/// SIGINT and SIGTERM. While apply's transfers run, the first one stops the run cleanly (partials
/// kept, reports written, exit 130/143: ``install(_:)``); a second one exits at once.
///
/// With an event stream or a metrics file, a command also has last words
/// (``exitAfterLastWords(_:)``): a signal that ends the process at once (a second one, or any
/// outside the transfers, which cannot be stopped part-way) first writes the stream's `run_end`
/// and the metrics file. Without them, signals outside the transfers keep their default action
/// until a stage has run, and are ignored after it.
enum SignalHandling {
    /// What a signal does now.
    private struct Route {
        /// The clean stop of the stage that runs (apply's transfers).
        var stage: (@Sendable (Int32) -> Void)?
        /// Said before the process exits at once, in order.
        var lastWords: [@Sendable (Int32) -> Void] = []
        /// A signal's last words are being said: the process exits once they are.
        var isSayingLastWords = false
        var isWatching = false
        /// Signals received so far, by number.
        var received: [Int32: Int] = [:]
    }

    private static let route = Mutex(Route())

    /// The dispatch sources, kept for the rest of the process: appended to once, by the one
    /// call of ``watch()`` that installs them, and never read.
    private final class Kept: @unchecked Sendable {
        var sources: [any DispatchSourceSignal] = []
    }

    private static let kept = Kept()

    /// A stage's clean stop, until ``Stage/cancel()``.
    final class Stage: Sendable {
        func cancel() { SignalHandling.route.withLock { $0.stage = nil } }
    }

    /// Sends the first SIGINT or SIGTERM to `handler` until the stage is cancelled; a second one
    /// exits at once.
    static func install(_ handler: @escaping @Sendable (Int32) -> Void) -> Stage {
        route.withLock { $0.stage = handler }
        watch()
        return Stage()
    }

    /// From now on a signal that ends the process at once calls `lastWords` first (after those
    /// given before), and a signal while no stage runs ends it (130 for SIGINT, 143 for SIGTERM).
    static func exitAfterLastWords(_ lastWords: @escaping @Sendable (Int32) -> Void) {
        route.withLock { $0.lastWords.append(lastWords) }
        watch()
    }

    /// The command is ending on its own (its reports, then `run_end`): a signal says no last words
    /// from now on. `false` when a signal's are being said: the process is about to exit with
    /// them, and the command must not end a second time.
    static func claimEnd() -> Bool {
        route.withLock { route in
            guard !route.isSayingLastWords else { return false }
            route.lastWords = []
            return true
        }
    }

    /// Ignores both signals' default action and takes them on a queue of its own, once.
    private static func watch() {
        let isNew = route.withLock { route in
            defer { route.isWatching = true }
            return !route.isWatching
        }
        guard isNew else { return }
        let queue = DispatchQueue(label: "jobrun-signals")
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler { received(sig) }
            source.resume()
            kept.sources.append(source)
        }
    }

    /// On the signals' queue: the stage's stop the first time, else last words and exit.
    private static func received(_ sig: Int32) {
        let (stage, lastWords, count) = route.withLock { route in
            route.received[sig, default: 0] += 1
            let count = route.received[sig, default: 0]
            // Claimed with the words read: a command that starts to end on its own now waits for the exit.
            if !(count == 1 && route.stage != nil), !route.lastWords.isEmpty { route.isSayingLastWords = true }
            return (route.stage, route.lastWords, count)
        }
        if count == 1, let stage {
            stage(sig)
            return
        }
        // A second signal, or one outside a stage that can stop cleanly.
        guard stage != nil || !lastWords.isEmpty else { return }
        for words in lastWords { words(sig) }
        // A live display on the terminal goes first, and the cursor comes back.
        TerminalWriter.restoreBeforeExit()
        _exit(StopReason.signal(sig).exitStatus.rawValue)
    }
}
