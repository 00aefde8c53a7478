public import Testing

/// Validation of JUnit reports against the published schemas, where the schemas are found
/// (``SharedPaths/junitSchemasMissing(environment:packageRoot:)``).
///
/// A test that only checks schemas takes the ``Testing/Trait/needsJUnitSchemas`` trait and is
/// skipped, with the reason, where they are missing. A test that checks more than the schemas
/// calls ``expectValid(_:sourceLocation:)``: the rest of the test runs everywhere, and the schema
/// part records a warning that says it was skipped and why.
public enum JUnitSchemaCheck {
    /// Expects `xmlFile` to be valid against every JUnit schema (a missing `xmllint` fails); where
    /// the schemas are missing, records a warning instead.
    public static func expectValid(_ xmlFile: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if let reason = SharedPaths.junitSchemasMissing() {
            Issue.record(Comment(rawValue: "\(reason) (for \(xmlFile))"), severity: .warning, sourceLocation: sourceLocation)
            return
        }
        do {
            for schema in try SharedPaths.junitSchemas() {
                let validation = XMLLint.validate(xmlFile: xmlFile, schema: schema)
                #expect(validation.ok, "\(xmlFile) against \(schema):\n\(validation.output)", sourceLocation: sourceLocation)
            }
        } catch {
            Issue.record(Comment(rawValue: error.message), sourceLocation: sourceLocation)
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where the JUnit schemas are found; elsewhere it is reported as skipped
    /// with ``SharedPaths/junitSchemasMissing(environment:packageRoot:)`` as the reason.
    public static var needsJUnitSchemas: Self {
        let reason = SharedPaths.junitSchemasMissing()
        return .enabled(if: reason == nil, Comment(rawValue: reason ?? "the JUnit schemas are found"))
    }
}
