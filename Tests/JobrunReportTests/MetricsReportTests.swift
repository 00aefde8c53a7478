import JobrunOutcome
import Testing

@testable import JobrunReport

/// `--metrics-file` in the Prometheus text format: escaped labels, every slice state written, and
/// the last successes carried over from the file replaced when the run did not succeed.
@Suite struct MetricsReportTests {
    static func run(exit: Int32, proven: Int, failed: Int, at seconds: Int64) -> RunMetrics {
        var run = RunMetrics(command: "apply", runID: "01RUN", endedAtMilliseconds: seconds * 1000)
        run.exitStatus = exit
        var r = RunMetrics.Resource(id: "deb\"ian\\x")
        for state in RunMetrics.SliceState.allCases { r.slices[state] = 0 }
        r.slices[.proven] = proven
        r.slices[.failed] = failed
        r.fetchedBytes = 1_536
        if failed == 0 { r.lastSuccessAtMilliseconds = seconds * 1000 }
        run.resources = [r]
        return run
    }

    static func text(_ run: RunMetrics, previous: [PrometheusSample] = []) -> String {
        String(decoding: MetricsReport.render(run, previous: previous), as: UTF8.self)
    }

    @Test func aRunIsWrittenWithEveryStateAndEscapedLabels() {
        let text = Self.text(Self.run(exit: 0, proven: 3, failed: 0, at: 1_800_000_000))
        #expect(text.contains(#"jobrun_resource_slices{command="apply",resource="deb\"ian\\x",state="proven"} 3"#), "\(text)")
        #expect(text.contains(#"jobrun_resource_slices{command="apply",resource="deb\"ian\\x",state="deferred"} 0"#))
        #expect(text.contains(#"jobrun_resource_fetched_bytes_total{command="apply",resource="deb\"ian\\x"} 1536"#))
        #expect(text.contains("# TYPE jobrun_resource_fetched_bytes_total counter\n"))
        #expect(text.contains(#"jobrun_run_success{command="apply"} 1"#) && text.contains(#"jobrun_run_exit_status{command="apply"} 0"#))
        #expect(text.contains(#"jobrun_resource_last_success_timestamp_seconds{command="apply",resource="deb\"ian\\x"} 1800000000"#))
        // Each family declared once, before its samples.
        #expect(text.components(separatedBy: "# TYPE jobrun_resource_slices ").count == 2)
    }

    @Test func aFailedRunKeepsTheLastSuccessesOfTheFileItReplaces() {
        let good = MetricsReport.render(Self.run(exit: 0, proven: 3, failed: 0, at: 1_800_000_000))
        let failed = Self.text(Self.run(exit: 1, proven: 2, failed: 1, at: 1_800_003_600), previous: PrometheusSample.read(good))
        #expect(failed.contains(#"jobrun_run_success{command="apply"} 0"#))
        #expect(failed.contains(#"jobrun_run_last_success_timestamp_seconds{command="apply"} 1800000000"#), "\(failed)")
        #expect(failed.contains(#"jobrun_resource_last_success_timestamp_seconds{command="apply",resource="deb\"ian\\x"} 1800000000"#))
        // Another command's file is not this one's past.
        var verify = Self.run(exit: 1, proven: 2, failed: 1, at: 1_800_003_600)
        verify.command = "verify"
        let other = Self.text(verify, previous: PrometheusSample.read(good))
        #expect(!other.contains("last_success"), "\(other)")
        // 75 (stopped, to continue) is no failure; 1 is.
        #expect(failed.contains(#"jobrun_run_failed{command="apply"} 1"#))
        var stopped = Self.run(exit: 75, proven: 2, failed: 0, at: 1_800_003_600)
        stopped.resources[0].lastSuccessAtMilliseconds = nil
        let stoppedText = Self.text(stopped, previous: PrometheusSample.read(good))
        #expect(stoppedText.contains(#"jobrun_run_failed{command="apply"} 0"#) && stoppedText.contains(#"jobrun_run_success{command="apply"} 0"#))
        // A resource whose catalog was refused has no slices this run, and keeps its last success.
        var refused = Self.run(exit: 1, proven: 0, failed: 0, at: 1_800_007_200)
        refused.resources = []
        refused.refusedCatalogs = ["deb\"ian\\x"]
        let kept = Self.text(refused, previous: PrometheusSample.read(good))
        #expect(kept.contains(#"jobrun_resource_last_success_timestamp_seconds{command="apply",resource="deb\"ian\\x"} 1800000000"#), "\(kept)")
        #expect(kept.contains(#"jobrun_catalog_refused{command="apply",resource="deb\"ian\\x"} 1"#))
    }

    @Test func theReaderTakesWhatItCanAndPassesOverTheRest() {
        let text = """
            # HELP x y
            up{job="a\\nb",k="\\"q\\""} 1.5
            bare 7
            broken{job="a} 1
            nolabelvalue{job=} 1
            novalue{a="b"}
            timestamped 3 1700000000000
            """
        let samples = PrometheusSample.read(Array(text.utf8))
        #expect(samples.map(\.name) == ["up", "bare", "timestamped"], "\(samples)")
        #expect(samples.first?.labels == ["job": "a\nb", "k": "\"q\""] && samples.first?.value == 1.5)
    }

    @Test func numbersAreWrittenAsPrometheusReadsThem() {
        #expect(PrometheusText.format(3) == "3" && PrometheusText.format(0.155) == "0.155" && PrometheusText.format(1_795_962_879.4) == "1795962879.4")
        #expect(PrometheusText.format(.infinity) == "+Inf" && PrometheusText.format(.nan) == "NaN")
    }

    @Test func aRunThatNeverKnewItsResourcesKeepsAllTheirSuccesses() {
        var two = Self.run(exit: 0, proven: 3, failed: 0, at: 1_800_000_000)
        var other = two.resources[0]
        other.id = "media"
        two.resources.append(other)
        let good = PrometheusSample.read(MetricsReport.render(two))
        // A catalog refused, then an error before any result (a full disk, say).
        var early = RunMetrics(command: "apply", runID: "01LATER", endedAtMilliseconds: 1_800_003_600_000)
        early.exitStatus = 74
        early.refusedCatalogs = ["media"]
        early.labels = [("mirror", "site")]
        let text = Self.text(early, previous: good)
        #expect(text.contains(#"jobrun_resource_last_success_timestamp_seconds{command="apply",mirror="site",resource="deb\"ian\\x"} 1800000000"#), "\(text)")
        #expect(text.contains(#"jobrun_resource_last_success_timestamp_seconds{command="apply",mirror="site",resource="media"} 1800000000"#), "\(text)")
        #expect(text.components(separatedBy: "resource=\"media\"} 1800000000").count == 2, "carried twice: \(text)")
    }
}
