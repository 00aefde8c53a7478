import ArgumentParser
import JobrunCore
import JobrunRun

extension Jobrun {
    /// Parses the command line, runs the command and exits, with 74 when a report it wrote could
    /// not be written completely (``Reports``); what `main()` does otherwise.
    public static func runAndExit() -> Never {
        // A reader of stdout that goes away is a write error to tell, not a signal that ends the
        // run untold (children get the default back, ``ProcessSpawn``).
        signal(SIGPIPE, SIG_IGN)
        // apply's libraries load while the command line is parsed and the manifests read, rather
        // than after the parse (docs/performance.md, "Start-up"); every exit below waits for them.
        if CommandLine.arguments.dropFirst().first == "apply" { _ = ApplyRun.startPreparingLibraries() }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            ApplyRun.waitForPreparedLibraries()
            guard Reports.haveFailed else { exit(withError: error) }
            // The status is the failed report's, but what went wrong besides is still told.
            let message = fullMessage(for: error)
            if !message.isEmpty { StandardError.write(message + "\n") }
            endProcess(Reports.status(after: exitCode(for: error).rawValue))
        }
        endProcess(Reports.status(after: ExitStatus.ok.rawValue))
    }
}

/// `exit(3)`, out of reach of the commands' own static `exit(withError:)`.
private func endProcess(_ status: Int32) -> Never {
    ApplyRun.waitForPreparedLibraries()
    exit(status)
}
