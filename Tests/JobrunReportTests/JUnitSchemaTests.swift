import Foundation
import JobrunReport
import JobrunTestSupport
import Testing

/// Every report shape must validate against both published schemas: the strict Ant one and the
/// Jenkins xUnit one. These tests run xmllint for real; a missing xmllint is a failure. Where the
/// schemas are not found (a clone with nothing beside it) the suite is skipped and says why.
@Suite(.needsJUnitSchemas) struct JUnitSchemaTests {
    static let reports: [(String, JUnitReport)] = [
        ("mixed", JUnitFixtures.mixed),
        ("no suites", JUnitReport()),
        (
            "suite without test cases",
            JUnitReport(suites: [.init(name: "empty", timestamp: JUnitFixtures.timestamp, hostname: "h")])
        ),
        (
            "blank names and extreme values",
            JUnitReport(suites: [
                .init(
                    name: " \t\n", package: "", timestamp: .init(secondsSince1970: .min), hostname: "",
                    time: .seconds(Int64.max), properties: [.init(name: " ", value: "")],
                    testCases: [
                        .init(classname: "", name: "", time: .milliseconds(-3)),
                        .init(classname: " ", name: " ", time: .seconds(1), result: .failure(type: "", message: "", text: "")),
                        .init(classname: "c", name: "e", time: .seconds(1), result: .error(type: "", message: "", text: "")),
                        .init(classname: "c", name: "s", time: .seconds(1), result: .skipped(message: "")),
                    ],
                    systemOut: "", systemErr: "\u{0}"),
                .init(name: "second", timestamp: .init(secondsSince1970: .max), hostname: "h"),
            ])
        ),
    ]

    @Test(arguments: 0..<reports.count)
    func validatesAgainstBothSchemas(index: Int) throws {
        let (label, report) = Self.reports[index]
        let schemas = try SharedPaths.junitSchemas()
        #expect(
            schemas.map { $0.split(separator: "/").last.map(String.init) ?? "" } == [
                "junit-ant-windyroad.xsd", "junit-jenkins-xunit.xsd",
            ])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("report.xml")
        try report.write(to: file)
        for schema in schemas {
            let (ok, output) = XMLLint.validate(xmlFile: file, schema: schema)
            #expect(ok, "\(label) against \(schema):\n\(output)\n\(report.render())")
        }
    }

    /// The Ant schema is strict about what the renderer guarantees; this makes sure the check
    /// itself can fail, so a broken xmllint setup cannot pass everything.
    @Test func theStrictSchemaRejectsAttributesOnTestsuites() throws {
        let schema = try SharedPaths.xsdDirectory() + "/junit-ant-windyroad.xsd"
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let xml = JUnitReport().render().replacingOccurrences(of: "<testsuites>", with: #"<testsuites tests="0">"#)
        let file = try directory.write(file: "bad.xml", contents: xml)
        let (ok, output) = XMLLint.validate(xmlFile: file, schema: schema)
        #expect(!ok)
        #expect(output.contains("tests"), "\(output)")
    }
}
