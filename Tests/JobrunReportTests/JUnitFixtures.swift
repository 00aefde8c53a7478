import JobrunReport

/// Reports shared by the rendering, golden and schema tests.
enum JUnitFixtures {
    /// 2024-02-29T23:59:58 UTC: a leap day, one second before a minute and day rollover.
    static let timestamp = JUnitReport.Timestamp(secondsSince1970: 1_709_251_198)

    /// Every result kind, properties, captured output, and strings that need escaping.
    static let mixed = JUnitReport(suites: [
        JUnitReport.Suite(
            name: "manifests/site.yaml",
            timestamp: timestamp,
            hostname: "ci-runner-7",
            time: .milliseconds(4_321),
            properties: [
                .init(name: "jobrun.version", value: "0.1.0"),
                .init(name: "shard", value: "1/4"),
                .init(name: "query", value: "a=1&b=<2> \"three\" 'four'"),
                .init(name: "multi-line", value: "line 1\nline 2\tTabbed\r\n"),
            ],
            testCases: [
                .init(classname: "site.mirror", name: "debian/README", time: .milliseconds(12)),
                .init(
                    classname: "site.mirror", name: "debian/ls-lR.gz", time: .microseconds(1_500_500),
                    result: .failure(
                        type: "digest-mismatch",
                        message: "sha256 mismatch: expected <ab12…> & got \"cd34…\"",
                        text: "expected: ab12\nactual:   cd34\n]]> <![CDATA[ not a section ]]>\n")),
                .init(
                    classname: "site.mirror", name: "debian/pool/main/h/hello_2.10.orig.tar.gz",
                    time: .seconds(2),
                    result: .error(
                        type: "io", message: "write failed: No space left on device",
                        text: "ENOSPC while writing 'pool/…/hello.tar.gz.part'")),
                .init(
                    classname: "site.mirror", name: "debian/dists/stable/Release", time: .zero,
                    result: .skipped(message: "dependency 'debian/ls-lR.gz' failed")),
                .init(
                    classname: "site.unicode", name: "héllo 世界 🚀 e\u{301}", time: .nanoseconds(499_999),
                    result: .failure(
                        type: "control-chars",
                        message: "nul\u{0} bell\u{7} esc\u{1B} vt\u{B} ff\u{C} fffe\u{FFFE} ffff\u{FFFF} del\u{7F}",
                        text: "cr\rlf\ntab\t nul\u{0} unit-sep\u{1F} & < > \" '")),
                .init(classname: "site.mirror", name: "skipped without message", time: .zero, result: .skipped(message: nil)),
            ],
            systemOut: "fetched 3 of 6 slices\n<progress> & done\n",
            systemErr: "warning: retrying after HTTP 503 \u{1B}[31mred\u{1B}[0m\n"),
        JUnitReport.Suite(
            name: "manifests/empty.yaml", package: "jobrun.empty", timestamp: timestamp, hostname: "ci-runner-7"),
    ])
}
