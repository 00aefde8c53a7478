public import CFuzzer

#if canImport(Glibc)
import Glibc
#endif

/// Hands the process's arguments and `test` to libFuzzer's driver and exits with its status.
/// `test` gets each input (it may be empty, with a null pointer) and must return 0.
public func fuzzerMain(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, test))
}

/// An input as a buffer (libFuzzer passes a null pointer with the empty input).
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
}

/// A property every input must keep; when it does not, says which on stderr and aborts, so that
/// libFuzzer saves the input (`precondition` traps without its message in optimised builds).
public func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    guard !condition() else { return }
    let line = Array("fuzz property broken: \(message())\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    abort()
}
