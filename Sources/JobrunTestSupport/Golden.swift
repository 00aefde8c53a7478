import Foundation

/// Golden-file comparison. Goldens live beside the tests in `Tests/<Target>/Golden/<name>`.
///
/// With `JOBRUN_RECORD_GOLDENS=1` in the environment a differing or missing golden is written
/// instead of compared, and the comparison still reports a failure, so a baseline is never
/// recorded silently. Comparison is byte for byte (Swift's `==` on strings would treat
/// canonically equivalent Unicode as equal).
///
///     #expect(Golden.compare(report.render(), named: "junit-mixed.xml") == nil)
public enum Golden {
    /// The environment variable that switches from comparing to recording.
    public static let recordVariable = "JOBRUN_RECORD_GOLDENS"

    /// Whether `JOBRUN_RECORD_GOLDENS` is `1` (or `true`/`yes`).
    public static var isRecording: Bool {
        guard let value = ProcessInfo.processInfo.environment[recordVariable]?.lowercased() else { return false }
        return ["1", "true", "yes"].contains(value)
    }

    /// `<directory of the test file>/Golden`; pass `#filePath`.
    public static func directory(forTestFile testFile: String) -> String {
        (testFile as NSString).deletingLastPathComponent + "/Golden"
    }

    /// Compares `actual` with `Golden/<name>` beside the calling test file.
    /// - Returns: `nil` when they match, else a failure description with a diff.
    public static func compare(_ actual: String, named name: String, testFile: String = #filePath) -> String? {
        compare(actual, file: directory(forTestFile: testFile) + "/" + name)
    }

    /// Compares `actual` with the golden file at `goldenPath`, or records it (see ``Golden``).
    /// - Returns: `nil` when they match, else a failure description with a diff.
    public static func compare(_ actual: String, file goldenPath: String) -> String? {
        compare(actual, file: goldenPath, isRecording: isRecording)
    }

    /// ``compare(_:file:)`` with recording switched explicitly rather than by the environment.
    public static func compare(_ actual: String, file goldenPath: String, isRecording: Bool) -> String? {
        let expectedBytes = FileManager.default.contents(atPath: goldenPath).map { [UInt8]($0) }
        let actualBytes = Array(actual.utf8)
        if expectedBytes == actualBytes { return nil }

        if isRecording {
            do {
                let parent = (goldenPath as NSString).deletingLastPathComponent
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
                try Data(actualBytes).write(to: URL(fileURLWithPath: goldenPath), options: .atomic)
            } catch {
                return "cannot record golden file \(goldenPath): \(error)"
            }
            return """
                recorded golden file \(goldenPath) (\(recordVariable) is set).
                Review it, then run again without \(recordVariable).
                """
        }

        guard let expectedBytes else {
            return """
                golden file missing: \(goldenPath)
                Record it with \(recordVariable)=1 and review it.
                """
        }
        let expected = String(decoding: expectedBytes, as: UTF8.self)
        let name = (goldenPath as NSString).lastPathComponent
        var diff = LineDiff.unified(expected: expected, actual: actual, expectedLabel: "golden/\(name)", actualLabel: "actual")
        if expected == actual {
            // Canonically equivalent but different bytes: the line diff cannot show it.
            diff = "the texts differ only in Unicode normalization (precomposed vs decomposed characters)\n"
        }
        return """
            golden mismatch: \(goldenPath)
            \(diff)If the change is intended, re-record with \(recordVariable)=1 and review the diff.
            """
    }
}
