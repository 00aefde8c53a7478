import ArgumentParser
import JobrunCore
import JobrunReport
import Synchronization

/// The reports a command was asked for, files and stdout alike, each written on its own: one that
/// cannot be written completely is said on stderr, naming it, the others are still attempted and
/// the summary still printed, and the command then exits 74 (``ExitStatus/ioError``) instead of
/// the status it would have had, but for a signal's. A report cut short never passes for a whole one.
enum Reports {
    private struct State {
        var failed: [String] = []
        /// What a failed report makes the exit status (`plan --detailed-exitcode`: every error is 1).
        var status = ExitStatus.ioError
    }

    private static let state = Mutex(State())

    /// Writes the report `name` (`the JUnit report 'x.xml'`) with `write`; a failure is told and
    /// remembered. Returns whether the report was written.
    @discardableResult
    static func attempt(_ name: String, _ write: () throws -> Void) -> Bool {
        do {
            try write()
            return true
        } catch let error as FileWriteError {
            failed(name, because: error.reason)
            return false
        } catch {
            failed(name, because: "\(error)")
            return false
        }
    }

    /// The report `name` could not be written completely, because of `reason`: said once per report.
    static func failed(_ name: String, because reason: String) {
        let isNew = state.withLock { state in
            guard !state.failed.contains(name) else { return false }
            state.failed.append(name)
            return true
        }
        if isNew { StandardError.write("jobrun: error: cannot write \(name): \(reason)\n") }
    }

    /// Whether a report could not be written.
    static var haveFailed: Bool { state.withLock { !$0.failed.isEmpty } }

    /// Makes a failed report exit with `status` instead of 74.
    static func failWith(_ status: ExitStatus) {
        state.withLock { $0.status = status }
    }

    /// The exit status of a command whose report cannot even be started (74, or what
    /// ``failWith(_:)`` made it).
    static var failureStatus: ExitStatus { state.withLock { $0.status } }

    /// The exit status of a command that would end with `status`: the failed reports' when some
    /// failed, unless a signal ended the run.
    static func status(after status: Int32) -> Int32 {
        let (failed, failure) = state.withLock { (!$0.failed.isEmpty, $0.status) }
        guard failed, status != ExitStatus.interrupted.rawValue, status != ExitStatus.terminated.rawValue else { return status }
        return failure.rawValue
    }
}
