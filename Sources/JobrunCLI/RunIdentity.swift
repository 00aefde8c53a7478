import ArgumentParser
import JobrunCore
import JobrunOutcome

/// The run id of this command (``RunID``).
enum RunIdentity {
    /// - Throws: `ExitCode` 64 when `JOBRUN_RUN_ID` is set to something unusable.
    static func resolve() throws -> String {
        do {
            return try RunID.resolve(environment: ProcessInfo.processInfo.environment)
        } catch {
            StandardError.write("jobrun: error: \(error)\n")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
    }
}
