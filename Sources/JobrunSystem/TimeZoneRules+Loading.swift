#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension TimeZoneRules {
    /// Why a zone could not be loaded by name.
    public enum LoadError: Error, Hashable, Sendable {
        /// Not a name the database could hold: empty, absolute, with an empty, `.` or `..`
        /// component, or with characters other than ASCII letters, digits, `/`, `_`, `-`, `+`, `.`.
        case invalidIdentifier
        /// The database has no such zone.
        case unknown
        /// There is no database in the folder (the tzdata package is not installed, or `TZDIR` is wrong).
        case noDatabase(directory: String)
        /// The zone's file exists but could not be read; the reason is `strerror`'s text.
        case unreadable(path: String, reason: String)
        case malformed(path: String, problem: TZifProblem)
    }

    /// A file reader: the file system (``readFile(_:)``), or the manifest loader's own source.
    public typealias Reader = (String) -> Result<[UInt8], FileReader.Failure>

    /// Where the database lives unless `TZDIR` says otherwise (as for the C library).
    public static let systemDirectory = "/usr/share/zoneinfo"

    /// `TZDIR` when set and not empty, else ``systemDirectory``.
    public static func directory(environment: [String: String]) -> String {
        if let dir = environment["TZDIR"], !dir.isEmpty { return dir }
        return systemDirectory
    }

    /// Reads a file of the database; zone files are a few kilobytes, so a megabyte is plenty.
    public static func readFile(_ path: String) -> Result<[UInt8], FileReader.Failure> {
        FileReader.read(path, limit: 1 << 20)
    }

    /// Whether `identifier` has the shape of a database name (`Europe/Berlin`, `Etc/GMT+5`, `UTC`).
    public static func isValidIdentifier(_ identifier: String) -> Bool {
        guard !identifier.isEmpty, identifier.utf8.count <= 255 else { return false }
        let components = identifier.split(separator: "/", omittingEmptySubsequences: false)
        return components.allSatisfy { c in
            !c.isEmpty && c != "." && c != ".."
                && c.utf8.allSatisfy { b in
                    (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
                        || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
                        || b == UInt8(ascii: "+") || b == UInt8(ascii: ".")
                }
        }
    }

    /// The zone named `identifier` (an IANA name such as `Europe/Berlin`) from the database in
    /// `directory`.
    public static func load(_ identifier: String, directory: String, read: Reader = readFile) -> Result<TimeZoneRules, LoadError> {
        guard isValidIdentifier(identifier) else { return .failure(.invalidIdentifier) }
        let path = directory + "/" + identifier
        switch read(path) {
        case .success(let bytes):
            do {
                return .success(try TimeZoneRules(identifier: identifier, tzif: bytes))
            } catch .notTZif {
                return .failure(.unknown)
            } catch {
                return .failure(.malformed(path: path, problem: error))
            }
        case .failure(.system(let e)) where e == ENOENT || e == ENOTDIR:
            // A missing folder is a missing database; reading a folder says it exists.
            if case .failure(.system(let d)) = read(directory), d == ENOENT || d == ENOTDIR {
                return .failure(.noDatabase(directory: directory))
            }
            return .failure(.unknown)
        case .failure(.directory), .failure(.notRegularFile), .failure(.tooLarge):
            // A region folder (`Europe`) or anything else that is not a zone file.
            return .failure(.unknown)
        case .failure(.system(let e)):
            return .failure(.unreadable(path: path, reason: systemErrorText(e)))
        }
    }

    /// Every zone name the database in `directory` lists (zones and their aliases), sorted, for
    /// suggestions: from `tzdata.zi`, else `zone1970.tab` and `zone.tab`; empty when none is there.
    public static func identifiers(directory: String, read: Reader = readFile) -> [String] {
        var names: Set<String> = []
        if case .success(let bytes) = read(directory + "/tzdata.zi") {
            for line in bytes.split(separator: UInt8(ascii: "\n")) {
                let fields = line.split(separator: UInt8(ascii: " "))
                // `Z name …` declares a zone, `L target name` an alias.
                if fields.count >= 2, fields[0].elementsEqual("Z".utf8) { names.insert(String(decoding: fields[1], as: UTF8.self)) }
                if fields.count >= 3, fields[0].elementsEqual("L".utf8) { names.insert(String(decoding: fields[2], as: UTF8.self)) }
            }
        } else {
            for table in ["zone1970.tab", "zone.tab"] {
                guard case .success(let bytes) = read(directory + "/" + table) else { continue }
                for line in bytes.split(separator: UInt8(ascii: "\n")) where line.first != UInt8(ascii: "#") {
                    let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
                    if fields.count >= 3 { names.insert(String(decoding: fields[2], as: UTF8.self)) }
                }
            }
            if !names.isEmpty { names.insert("UTC") }
        }
        return names.filter(isValidIdentifier).sorted()
    }

    /// The machine's local zone as the C library finds it: `TZ` (a database name, with or
    /// without a leading `:`, an absolute path to a zone file, or a POSIX `TZ` string; empty is
    /// UTC), else `/etc/localtime`, whose link target names the zone. UTC when neither gives one,
    /// as the C library falls back.
    public static func local(environment: [String: String], localtime: String = "/etc/localtime", read: Reader = readFile) -> TimeZoneRules {
        if let tz = environment["TZ"] {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if name.isEmpty { return .utc }
            if name.hasPrefix("/") {
                if case .success(let bytes) = read(name), let rules = try? TimeZoneRules(identifier: name, tzif: bytes) { return rules }
                return .utc
            }
            if case .success(let rules) = load(name, directory: directory(environment: environment), read: read) { return rules }
            return TimeZoneRules(posix: name) ?? .utc
        }
        guard case .success(let bytes) = read(localtime) else { return .utc }
        var identifier = "localtime"
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: localtime),
            let range = target.ranges(of: "zoneinfo/").last
        {
            identifier = String(target[range.upperBound...])
        }
        return (try? TimeZoneRules(identifier: identifier, tzif: bytes)) ?? .utc
    }
}
