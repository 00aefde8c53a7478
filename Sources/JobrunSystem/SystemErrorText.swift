#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `strerror(code)`. glibc's strerror has been thread-safe since 2.32 (messages are static
/// strings, unknown codes use a thread-local buffer); Darwin's returns static strings too.
public func systemErrorText(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    return String(cString: text)
}
