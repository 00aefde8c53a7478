import Foundation
import JobrunReport
import JobrunTestSupport
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite struct JUnitReportTests {
    @Test func mixedReportMatchesGolden() {
        #expect(Golden.compare(JUnitFixtures.mixed.render(), named: "junit-mixed.xml") == nil)
    }

    @Test func emptyReportsMatchGoldens() {
        #expect(Golden.compare(JUnitReport().render(), named: "junit-no-suites.xml") == nil)
        let empty = JUnitReport(suites: [
            .init(name: " ", timestamp: .init(secondsSince1970: 0), hostname: "", properties: [.init(name: "", value: "")])
        ])
        #expect(Golden.compare(empty.render(), named: "junit-blank-names.xml") == nil)
    }

    @Test func rendersTheSameBytesEveryTime() {
        #expect(JUnitFixtures.mixed.render() == JUnitFixtures.mixed.render())
        #expect(JUnitFixtures.mixed.renderedBytes() == Array(JUnitFixtures.mixed.render().utf8))
    }

    @Test func countsComeFromTestCases() {
        let suite = JUnitFixtures.mixed.suites[0]
        #expect(suite.testCount == 6)
        #expect(suite.failureCount == 2)
        #expect(suite.errorCount == 1)
        #expect(suite.skippedCount == 2)
        let xml = JUnitFixtures.mixed.render()
        #expect(xml.contains(#"tests="6" failures="2" errors="1" skipped="2" time="4.321""#))
    }

    @Test func suiteTimeDefaultsToTheSumOfItsTestCases() {
        let suite = JUnitReport.Suite(
            name: "s", timestamp: JUnitFixtures.timestamp, hostname: "h",
            testCases: [
                .init(classname: "c", name: "a", time: .milliseconds(250)),
                .init(classname: "c", name: "b", time: .milliseconds(1_750)),
            ])
        #expect(suite.time == .seconds(2))
    }

    @Test(arguments: [
        (Duration.zero, "0.000"),
        (.milliseconds(12), "0.012"),
        (.microseconds(1_499), "0.001"),
        (.microseconds(1_500), "0.002"),
        (.nanoseconds(999_500_000), "1.000"),
        (.seconds(86_400 * 365), "31536000.000"),
        (.milliseconds(-5), "0.000"),
        (.seconds(Int64.max), "9223372036854775.807"),
    ])
    func formatsTimesWithThreeDecimals(time: Duration, expected: String) {
        let report = JUnitReport(suites: [
            .init(name: "s", timestamp: JUnitFixtures.timestamp, hostname: "h", time: time)
        ])
        #expect(report.render().contains(#"time="\#(expected)">"#))
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00"),
        (1_709_251_198, "2024-02-29T23:59:58"),
        (951_782_400, "2000-02-29T00:00:00"),
        (-1, "1969-12-31T23:59:59"),
        (4_107_542_399, "2100-02-28T23:59:59"),
        (Int64.min, "0001-01-01T00:00:00"),
        (Int64.max, "9999-12-31T23:59:59"),
    ])
    func formatsTimestampsInUTCWithoutZone(seconds: Int64, expected: String) {
        let timestamp = JUnitReport.Timestamp(secondsSince1970: seconds)
        #expect(timestamp.description == expected)
        #expect(JUnitReport.Timestamp(iso8601: expected) == timestamp)
    }

    @Test func timestampsFromDatesTruncateToTheSecond() {
        #expect(JUnitReport.Timestamp(Date(timeIntervalSince1970: 1_709_251_198.999)).description == "2024-02-29T23:59:58")
        #expect(JUnitReport.Timestamp(Date(timeIntervalSince1970: -0.5)).description == "1969-12-31T23:59:59")
        #expect(JUnitReport.Timestamp(Date.distantFuture).description == "4001-01-01T00:00:00")
        #expect(JUnitReport.Timestamp(Date(timeIntervalSince1970: .infinity)).description == "9999-12-31T23:59:59")
        #expect(JUnitReport.Timestamp(Date(timeIntervalSince1970: -.infinity)).description == "0001-01-01T00:00:00")
        #expect(JUnitReport.Timestamp(Date(timeIntervalSince1970: .nan)).description == "1970-01-01T00:00:00")
    }

    @Test(arguments: [
        "2024-02-30T00:00:00", "2023-02-29T00:00:00", "2024-01-01 00:00:00", "2024-01-01T24:00:00", "0000-01-01T00:00:00", "2024-1-01T00:00:00", "",
    ])
    func rejectsMalformedTimestamps(text: String) {
        #expect(JUnitReport.Timestamp(iso8601: text) == nil)
    }

    @Test func escapesMarkupInAttributesAndText() {
        let report = JUnitReport(suites: [
            .init(
                name: "s", timestamp: JUnitFixtures.timestamp, hostname: "h",
                testCases: [
                    .init(
                        classname: "a&b", name: "<\"'>", time: .zero,
                        result: .failure(type: "t\tab", message: "l1\nl2\r", text: "x & y < z > \"q\" 'a'\n\tindented\r"))
                ])
        ])
        let xml = report.render()
        #expect(xml.contains(#"classname="a&amp;b" name="&lt;&quot;&apos;&gt;""#))
        #expect(xml.contains(#"type="t&#9;ab" message="l1&#10;l2&#13;""#))
        #expect(xml.contains(">x &amp; y &lt; z &gt; &quot;q&quot; &apos;a&apos;\n\tindented&#13;</failure>"))
    }

    @Test func replacesCharactersXMLCannotCarry() {
        let report = JUnitReport(suites: [
            .init(
                name: "s", timestamp: JUnitFixtures.timestamp, hostname: "h",
                testCases: [
                    .init(classname: "c", name: "\u{0}\u{1}\u{8}\u{B}\u{C}\u{E}\u{1F}\u{FFFE}\u{FFFF}", time: .zero)
                ])
        ])
        #expect(report.render().contains(#"name="\u0000\u0001\u0008\u000B\u000C\u000E\u001F\uFFFE\uFFFF""#))
        // Neighbours of the forbidden scalars are legal and pass through unchanged.
        let legal = "\u{7F}\u{85}\u{FFFD}\u{FFEF}\u{10FFFF}"
        let legalReport = JUnitReport(suites: [.init(name: legal, timestamp: JUnitFixtures.timestamp, hostname: "h")])
        #expect(legalReport.render().contains(#"<testsuite name="\#(legal)""#))
    }

    #if canImport(FoundationXML)
    /// Parsing the output back proves that escaped values survive a real XML parser unchanged,
    /// tabs, newlines and carriage returns in attributes included.
    @Test func parsesBackToTheSameValues() throws {
        let document = try XMLDocument(xmlString: JUnitFixtures.mixed.render(), options: [])
        let root = try #require(document.rootElement())
        #expect(root.name == "testsuites")
        #expect(root.attributes == nil || root.attributes?.isEmpty == true)
        let suites = root.elements(forName: "testsuite")
        #expect(suites.count == 2)
        let suite = try #require(suites.first)
        #expect(suite.attribute(forName: "id")?.stringValue == "0")
        #expect(suites.last?.attribute(forName: "id")?.stringValue == "1")

        let properties = suite.elements(forName: "properties").first?.elements(forName: "property") ?? []
        let expectedProperties = JUnitFixtures.mixed.suites[0].properties
        #expect(properties.map { $0.attribute(forName: "value")?.stringValue } == expectedProperties.map(\.value))

        let cases = suite.elements(forName: "testcase")
        #expect(cases.count == 6)
        let failure = try #require(cases[1].elements(forName: "failure").first)
        #expect(failure.attribute(forName: "message")?.stringValue == "sha256 mismatch: expected <ab12…> & got \"cd34…\"")
        #expect(failure.stringValue == "expected: ab12\nactual:   cd34\n]]> <![CDATA[ not a section ]]>\n")
        #expect(cases[4].attribute(forName: "name")?.stringValue == "héllo 世界 🚀 e\u{301}")
        let controls = try #require(cases[4].elements(forName: "failure").first)
        #expect(controls.stringValue == "cr\rlf\ntab\t nul\\u0000 unit-sep\\u001F & < > \" '")
        #expect(suite.elements(forName: "system-out").first?.stringValue == "fetched 3 of 6 slices\n<progress> & done\n")
    }
    #endif
}
