/// Where an ``EventStream`` puts its lines, in order: a ``BackgroundWriter`` for a file or stdout,
/// or a test's collector.
public protocol EventOutput: AnyObject {
    /// One event: a JSON object and its newline.
    func write(_ line: [UInt8])
    /// After the last event: everything is written by the time this returns.
    func finish()
}

extension BackgroundWriter: EventOutput {}
