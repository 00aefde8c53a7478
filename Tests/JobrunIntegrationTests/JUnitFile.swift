import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The test cases of a JUnit report by `classname/name`: which child element each has, with its
/// `type` and `message` (enough to read a report as Jenkins or GitLab would).
struct JUnitFile {
    struct Case: Equatable {
        var kind: String  // "passed", "failure", "error" or "skipped"
        var type: String?
        var message: String?
        var time: String?
    }
    var cases: [String: Case] = [:]

    static func parse(_ xml: String) throws -> JUnitFile {
        let document = try XMLDocument(xmlString: xml)
        var file = JUnitFile()
        for node in try document.nodes(forXPath: "//testcase") {
            guard let element = node as? XMLElement else { continue }
            let key = "\(element.attribute(forName: "classname")?.stringValue ?? "")/\(element.attribute(forName: "name")?.stringValue ?? "")"
            let child = element.children?.compactMap { $0 as? XMLElement }.first
            file.cases[key] = Case(
                kind: child?.name ?? "passed", type: child?.attribute(forName: "type")?.stringValue,
                message: child?.attribute(forName: "message")?.stringValue, time: element.attribute(forName: "time")?.stringValue)
        }
        return file
    }
}
