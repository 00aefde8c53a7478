import Dispatch
import JobrunCore
import JobrunReport

/// The live display of a run, if it has one.
struct LiveDisplay {
    let progress: TerminalProgress?
    let suspension: (any DispatchSourceSignal)?

    /// Removes the display and shows the cursor again (at once when nothing is drawn); ^Z
    /// stops the process as usual from then on.
    func end() {
        progress?.end()
        if let suspension {
            suspension.cancel()
            signal(SIGTSTP, SIG_DFL)
        }
    }

    /// ^Z (SIGTSTP): the display goes and the cursor is shown before the process stops, and
    /// the display comes back when it is continued; the shell would otherwise get a terminal
    /// without a cursor.
    static func handleSuspension(of writer: TerminalWriter) -> any DispatchSourceSignal {
        signal(SIGTSTP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGTSTP, queue: DispatchQueue(label: "jobrun-suspend"))
        source.setEventHandler {
            writer.suspend()
            // Stops here until SIGCONT (`fg`, `bg`).
            kill(getpid(), SIGSTOP)
            writer.resume()
        }
        source.resume()
        return source
    }
}
