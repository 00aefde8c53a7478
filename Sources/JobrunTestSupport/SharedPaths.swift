import Foundation
import JobrunCore

/// Locates the repository's `shared/` directory (the JUnit XSDs live in `shared/xsd`).
///
/// CI clones the package as `<somewhere>/<repo>` with `shared/` beside it, so the default is
/// `<package root>/../shared`; `JOBRUN_SHARED_DIR` overrides it.
public enum SharedPaths {
    /// The environment variable that overrides the shared directory.
    public static let sharedDirectoryVariable = "JOBRUN_SHARED_DIR"

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
    public static var sharedDirectory: String {
        get throws(NotFound) {
            if let configured = ProcessInfo.processInfo.environment[sharedDirectoryVariable], !configured.isEmpty {
                guard FileStatus.isDirectory(atPath: configured) else {
                    throw NotFound(message: "\(sharedDirectoryVariable)=\(configured) is not a directory")
                }
                return (configured as NSString).standardizingPath
            }
            guard let root = packageRoot() else {
                throw NotFound(message: "no Package.swift above \(#filePath); set \(sharedDirectoryVariable)")
            }
            let shared = ((root as NSString).deletingLastPathComponent as NSString).appendingPathComponent("shared")
            guard FileStatus.isDirectory(atPath: shared) else {
                throw NotFound(message: "\(shared) does not exist; set \(sharedDirectoryVariable)")
            }
            return shared
        }
    }

    /// `<shared>/xsd`.
    public static var xsdDirectory: String {
        get throws(NotFound) {
            let xsd = try sharedDirectory + "/xsd"
            guard FileStatus.isDirectory(atPath: xsd) else { throw NotFound(message: "\(xsd) does not exist") }
            return xsd
        }
    }

    /// Every `*.xsd` in ``xsdDirectory``, sorted: the schemas a JUnit report must satisfy.
    public static var junitSchemas: [String] {
        get throws(NotFound) {
            let directory = try xsdDirectory
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            let schemas = names.filter { $0.hasSuffix(".xsd") }.sorted().map { directory + "/" + $0 }
            guard !schemas.isEmpty else { throw NotFound(message: "no .xsd files in \(directory)") }
            return schemas
        }
    }

    /// A shared path could not be found; the message says where it looked.
    public struct NotFound: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
