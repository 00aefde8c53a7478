import JobrunCore
import JobrunOutcome
public import JobrunJSON

extension ShardMerge {
    /// The merged result (``merge(_:)``'s document) as JUnit, with the test cases `apply --junit`
    /// writes, read back from the JSON: a suite per resource (by id), a test case per slice (by
    /// path), `<failure>` for a digest or size mismatch, `<error>` for other failures and slices
    /// cut in flight, `<skipped>` for slices not started or deferred, and `hook …` cases for the
    /// hooks that could fail the run. A stopped shard, or a problem with the set, adds a suite
    /// `jobrun` whose test case is an error: a CI server that reads only the XML shows the
    /// merged run incomplete.
    public static func junit(_ document: JSONValue, timestamp: JUnitReport.Timestamp, hostname: String) -> JUnitReport {
        let properties = (document["shards"]?.arrayValue ?? []).compactMap { shard -> JUnitReport.Property? in
            guard let index = shard["index"]?.intValue else { return nil }
            return JUnitReport.Property(name: "shard_\(index)_run_id", value: shard["run_id"]?.stringValue ?? "")
        }
        var report = JUnitReport(
            suites: (document["resources"]?.arrayValue ?? []).map { r in
                let id = r["id"]?.stringValue ?? ""
                let cases = (r["slices"]?.arrayValue ?? []).map { sliceCase($0, of: id) } + hookCases(r, of: id)
                return JUnitReport.Suite(name: id, package: "jobrun.apply", timestamp: timestamp, hostname: hostname, properties: properties, testCases: cases)
            })
        let problems = (document["problems"]?.arrayValue ?? []).compactMap(\.stringValue)
        let stopped = (document["shards"]?.arrayValue ?? []).compactMap { shard -> String? in
            guard let reason = shard["stop_reason"]?.stringValue else { return nil }
            let what =
                switch reason {
                case "signal": "a signal"
                case "offline": "the network staying offline"
                default: "the \(reason)"
                }
            return "shard \(shard["index"]?.intValue ?? -1) was stopped by \(what) before it finished; run it again to finish it"
        }
        if !problems.isEmpty || !stopped.isEmpty {
            let message = (problems + stopped).joined(separator: "; ")
            let run = JUnitReport.TestCase(
                classname: "jobrun", name: "shards", time: .zero,
                result: .error(
                    type: problems.isEmpty ? SliceErrorKind.interrupted.rawValue : "ShardsIncomplete", message: message,
                    text: (problems + stopped).joined(separator: "\n")))
            report.suites.append(
                JUnitReport.Suite(name: "jobrun", package: "jobrun.apply", timestamp: timestamp, hostname: hostname, properties: properties, testCases: [run]))
        }
        return report
    }

    /// A slice's test case, as `apply --junit` writes it.
    static func sliceCase(_ s: JSONValue, of id: String) -> JUnitReport.TestCase {
        let error = s["error"]
        var text = ApplyReports.caseText(
            file: s["file"]?.stringValue ?? "", url: s["url"]?.stringValue ?? "", attempts: s["attempts"]?.intValue ?? 0,
            bytes: s["bytes_transferred"]?.intValue ?? 0, lastError: error?["message"]?.stringValue,
            failedAt: (s["failed_at"]?.arrayValue ?? []).map { f in
                ApplyReports.failedAtLine(
                    url: f["url"]?.stringValue ?? "", type: f["error"]?["type"]?.stringValue ?? "Error", message: f["error"]?["message"]?.stringValue ?? "")
            })
        if case .object(let actual)? = error?["actual_digests"], !actual.isEmpty {
            for (algorithm, value) in actual {
                text += "\nexpected \(algorithm): \(s["digests"]?[algorithm]?.stringValue ?? "?")\nactual   \(algorithm): \(value.stringValue ?? "?")"
            }
        }
        let type = error?["type"]?.stringValue ?? "Error"
        let message = error?["message"]?.stringValue ?? "failed"
        let result: JUnitReport.TestCase.Result
        switch s["status"]?.stringValue {
        case "fetched", "resumed", "repaired", "up_to_date":
            result = .passed
        case "failed":
            result = ApplyReports.failedCase(type: type, message: message, text: text)
        case "skipped" where type == SliceErrorKind.interrupted.rawValue:
            result = .error(type: type, message: message, text: text)
        case "deferred":
            result = .skipped(message: s["skip_reason"]?.stringValue ?? "deferred by the network policy")
        default:
            result = .skipped(message: s["skip_reason"]?.stringValue ?? "not started")
        }
        return JUnitReport.TestCase(classname: id, name: s["path"]?.stringValue ?? "", time: duration(s["seconds"]), result: result)
    }

    /// The cases of the hooks that could fail the run (`on_hook_failure: fail`).
    static func hookCases(_ r: JSONValue, of id: String) -> [JUnitReport.TestCase] {
        (r["hooks"]?.arrayValue ?? []).filter { $0["on_hook_failure"]?.stringValue == "fail" }.map { hook in
            let name = hook["hook"]?.stringValue ?? "hook"
            let result: JUnitReport.TestCase.Result
            if hook["cut_short"]?.boolValue == true {
                result = .skipped(message: "stopped with the run; it runs again on the next apply")
            } else if hook["fails_run"]?.boolValue == true {
                let status = hook["exit_status"]?.intValue.map { "exit status \($0)" } ?? hook["error"]?.stringValue ?? "failed"
                result = .failure(
                    type: "HookFailed", message: "\(name): \(status)", text: "\(name): \(status)\noutput (its end):\n\(hook["output_tail"]?.stringValue ?? "")")
            } else {
                result = .passed
            }
            return JUnitReport.TestCase(classname: id, name: "hook \(name)", time: duration(hook["seconds"]), result: result)
        }
    }

    /// Seconds as a report gives them, within a day's worth of years: a file's absurd number
    /// cannot trap the conversion.
    static func duration(_ seconds: JSONValue?) -> Duration {
        let s = seconds?.doubleValue ?? 0
        guard s.isFinite, s > 0 else { return .zero }
        return .milliseconds(Int64((min(s, 1e12) * 1000).rounded()))
    }
}
