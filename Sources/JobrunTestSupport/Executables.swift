/// Programs a test needs from the machine, looked up as a shell would.
public enum Executables {
    /// The first executable `name` on `PATH`, or `name` itself when it contains a slash and is
    /// executable; `nil` when there is none (the test that needs it is skipped, with the reason).
    public static func find(_ name: String) -> String? { ProcessRunner.which(name) }
}
