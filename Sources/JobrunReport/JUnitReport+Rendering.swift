public import JobrunCore

extension JUnitReport {
    /// The report as UTF-8 XML text, ending with a newline.
    public func render() -> String {
        String(decoding: renderedBytes(), as: UTF8.self)
    }

    /// The report as UTF-8 XML bytes, ending with a newline: what ``write(to:)`` writes.
    public func renderedBytes() -> [UInt8] {
        var out = JUnitXMLBuffer(reservingCapacity: 256 + suites.reduce(0) { $0 + 128 * $1.testCases.count })
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        // The Ant schema gives <testsuites> no attributes at all, so totals live on the suites.
        out.append("<testsuites>\n")
        for (index, suite) in suites.enumerated() {
            Self.render(suite, id: index, into: &out)
        }
        out.append("</testsuites>\n")
        return out.bytes
    }

    /// Writes the report atomically: a temporary file beside `path`, then `rename(2)`, so a reader
    /// never sees a partial report.
    public func write(to path: String) throws(FileWriteError) {
        try AtomicFile.write(renderedBytes(), to: path)
    }

    private static func render(_ suite: Suite, id: Int, into out: inout JUnitXMLBuffer) {
        let name = nonBlank(suite.name, or: "(unnamed)")
        out.appendIndent(1)
        out.append("<testsuite")
        // Attribute order follows the Ant schema's declaration, which is how Ant itself writes them.
        out.appendAttribute("name", name)
        out.appendAttribute("package", suite.package ?? name)
        out.appendAttribute("id", String(id))
        out.appendAttribute("timestamp", suite.timestamp.description)
        out.appendAttribute("hostname", nonBlank(suite.hostname, or: "unknown"))
        out.appendAttribute("tests", String(suite.testCount))
        out.appendAttribute("failures", String(suite.failureCount))
        out.appendAttribute("errors", String(suite.errorCount))
        out.appendAttribute("skipped", String(suite.skippedCount))
        out.append(" time=\"")
        out.appendSeconds(suite.time)
        out.append("\">\n")

        // The Ant schema's sequence is properties, testcase*, system-out, system-err, and none of
        // the three wrappers is optional.
        out.appendIndent(2)
        if suite.properties.isEmpty {
            out.append("<properties/>\n")
        } else {
            out.append("<properties>\n")
            for property in suite.properties {
                out.appendIndent(3)
                out.append("<property")
                out.appendAttribute("name", nonBlank(property.name, or: "(unnamed)"))
                out.appendAttribute("value", property.value)
                out.append("/>\n")
            }
            out.appendIndent(2)
            out.append("</properties>\n")
        }

        for testCase in suite.testCases {
            render(testCase, into: &out)
        }

        renderStream("<system-out", "</system-out>\n", suite.systemOut, into: &out)
        renderStream("<system-err", "</system-err>\n", suite.systemErr, into: &out)
        out.appendIndent(1)
        out.append("</testsuite>\n")
    }

    private static func render(_ testCase: TestCase, into out: inout JUnitXMLBuffer) {
        out.appendIndent(2)
        out.append("<testcase")
        out.appendAttribute("classname", testCase.classname)
        out.appendAttribute("name", testCase.name)
        out.append(" time=\"")
        out.appendSeconds(testCase.time)
        out.append("\"")
        switch testCase.result {
        case .passed:
            out.append("/>\n")
            return
        case .failure(let type, let message, let text):
            out.append(">\n")
            renderProblem("<failure", "</failure>\n", type: type, message: message, text: text, into: &out)
        case .error(let type, let message, let text):
            out.append(">\n")
            renderProblem("<error", "</error>\n", type: type, message: message, text: text, into: &out)
        case .skipped(let message):
            out.append(">\n")
            out.appendIndent(3)
            out.append("<skipped")
            if let message { out.appendAttribute("message", message) }
            out.append("/>\n")
        }
        out.appendIndent(2)
        out.append("</testcase>\n")
    }

    private static func renderProblem(
        _ open: StaticString, _ close: StaticString, type: String, message: String, text: String,
        into out: inout JUnitXMLBuffer
    ) {
        out.appendIndent(3)
        out.append(open)
        out.appendAttribute("type", type)
        out.appendAttribute("message", message)
        if text.isEmpty {
            out.append("/>\n")
        } else {
            // No indentation inside: the content is whitespace-preserving text.
            out.append(">")
            out.appendText(text)
            out.append(close)
        }
    }

    private static func renderStream(
        _ open: StaticString, _ close: StaticString, _ text: String?, into out: inout JUnitXMLBuffer
    ) {
        out.appendIndent(2)
        out.append(open)
        if let text, !text.isEmpty {
            out.append(">")
            out.appendText(text)
            out.append(close)
        } else {
            out.append("/>\n")
        }
    }

    /// `text` unless it is empty or only XML whitespace, which an `xs:token` collapses to nothing.
    private static func nonBlank(_ text: String, or fallback: String) -> String {
        let isBlank = text.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        return isBlank ? fallback : text
    }
}
