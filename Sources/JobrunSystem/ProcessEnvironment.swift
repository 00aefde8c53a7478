#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// This process's environment, read one variable at a time (without Foundation's
/// `ProcessInfo`, which would load all of Foundation into a module that has no other use for it).
public enum ProcessEnvironment {
    /// The value of `name`, or `nil` when it is not set.
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
