import Foundation
import JobrunCore
import JobrunSystem

/// Locates what the tests use from outside the package: the JUnit XSDs.
///
/// CI clones the package as `<somewhere>/<repo>` with the project's `shared/` folder beside it, so
/// the schemas default to `<package root>/../shared/xsd`. `JOBRUN_JUNIT_XSD_DIR` names the schema
/// folder itself and wins; `JOBRUN_SHARED_DIR` moves `shared/`. A clone with nothing beside it
/// has no schemas: the checks that need them are skipped and say why (``junitSchemasMissing``),
/// while a variable that is set and wrong fails them, so a misconfigured CI cannot skip quietly.
/// Every lookup takes the environment as a parameter (the process's by default) so it can be
/// tested without changing the process's own.
public enum SharedPaths {
    public typealias Environment = [String: String]

    /// This process's environment, the lookups' default.
    public static var processEnvironment: Environment { ProcessInfo.processInfo.environment }

    /// The environment variable that overrides the shared directory.
    public static let sharedDirectoryVariable = "JOBRUN_SHARED_DIR"
    /// The environment variable naming the folder of JUnit `.xsd` files; it takes precedence.
    public static let junitSchemaDirectoryVariable = "JOBRUN_JUNIT_XSD_DIR"

    /// The nearest directory at or above `filePath` holding a `Package.swift`. The default,
    /// this library's own source path, finds the jobrun package.
    public static func packageRoot(startingAt filePath: String = #filePath) -> String? {
        var directory = (filePath as NSString).deletingLastPathComponent
        while !directory.isEmpty {
            if FileManager.default.fileExists(atPath: directory + "/Package.swift") { return directory }
            if directory == "/" { return nil }
            directory = (directory as NSString).deletingLastPathComponent
        }
        return nil
    }

    /// `$JOBRUN_SHARED_DIR`, else `<package root>/../shared`, standardized.
    public static func sharedDirectory(
        environment: Environment = processEnvironment, packageRoot: String? = packageRoot()
    ) throws(NotFound) -> String {
        if let configured = value(of: sharedDirectoryVariable, in: environment) {
            return try existingDirectory(configured, "\(sharedDirectoryVariable)=\(configured) is not a directory")
        }
        guard let packageRoot else {
            throw NotFound(message: "no Package.swift above \(#filePath); set \(sharedDirectoryVariable)")
        }
        let shared = defaultSharedDirectory(packageRoot: packageRoot)
        return try existingDirectory(shared, "\(shared) does not exist; set \(sharedDirectoryVariable)")
    }

    /// `$JOBRUN_JUNIT_XSD_DIR`, else `<shared>/xsd`.
    public static func xsdDirectory(
        environment: Environment = processEnvironment, packageRoot: String? = packageRoot()
    ) throws(NotFound) -> String {
        if let configured = value(of: junitSchemaDirectoryVariable, in: environment) {
            return try existingDirectory(configured, "\(junitSchemaDirectoryVariable)=\(configured) is not a directory")
        }
        let xsd = try sharedDirectory(environment: environment, packageRoot: packageRoot) + "/xsd"
        return try existingDirectory(xsd, "\(xsd) does not exist")
    }

    /// Every `*.xsd` in ``xsdDirectory(environment:packageRoot:)``, sorted: the schemas a JUnit
    /// report must satisfy.
    public static func junitSchemas(
        environment: Environment = processEnvironment, packageRoot: String? = packageRoot()
    ) throws(NotFound) -> [String] {
        let directory = try xsdDirectory(environment: environment, packageRoot: packageRoot)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let schemas = names.filter { $0.hasSuffix(".xsd") }.sorted().map { directory + "/" + $0 }
        guard !schemas.isEmpty else { throw NotFound(message: "no .xsd files in \(directory)") }
        return schemas
    }

    /// Why the JUnit schema checks cannot run here, or `nil` when they can. They are skipped only
    /// when neither variable is set and `<package root>/../shared/xsd` does not exist; otherwise
    /// they run, and a schema folder that is wrong or empty is their failure.
    public static func junitSchemasMissing(
        environment: Environment = processEnvironment, packageRoot: String? = packageRoot()
    ) -> String? {
        let isConfigured = [junitSchemaDirectoryVariable, sharedDirectoryVariable].contains { value(of: $0, in: environment) != nil }
        let expected = packageRoot.map { defaultSharedDirectory(packageRoot: $0) + "/xsd" }
        if isConfigured || expected.map(FileStatus.isDirectory(atPath:)) == true { return nil }
        return "JUnit schema check skipped: \(expected ?? "../shared/xsd") does not exist and \(junitSchemaDirectoryVariable) "
            + "is not set (set it to the folder of JUnit .xsd files to run this check)"
    }

    /// `<package root>/../shared`, whether or not it exists.
    static func defaultSharedDirectory(packageRoot: String) -> String {
        ((packageRoot as NSString).deletingLastPathComponent as NSString).appendingPathComponent("shared")
    }

    static func value(of variable: String, in environment: Environment) -> String? {
        guard let value = environment[variable], !value.isEmpty else { return nil }
        return value
    }

    static func existingDirectory(_ path: String, _ otherwise: String) throws(NotFound) -> String {
        guard FileStatus.isDirectory(atPath: path) else { throw NotFound(message: otherwise) }
        return (path as NSString).standardizingPath
    }

    /// A shared path could not be found; the message says where it looked.
    public struct NotFound: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
