public import JobrunCore
public import JobrunSystem

/// A small time zone database for tests, `Tests/Support/zoneinfo`: TZif files of a few zones as
/// tzdata 2025b installs them (transitions listed up to 2037), `slim/Europe/Berlin` as
/// `zic -b slim` writes it (transitions only up to 1996, the rest from its TZ string), and those
/// zones' lines of `zone1970.tab`. Tests point `TZDIR` at it, so they do not depend on the
/// machine's own database or its version.
public enum ZoneInfoFixture {
    /// The folder, found from this file's path.
    public static var directory: String { (SharedPaths.packageRoot() ?? ".") + "/Tests/Support/zoneinfo" }

    /// One of its zones, loaded; a missing or broken fixture fails the test that asked.
    public static func rules(_ identifier: String) throws -> TimeZoneRules {
        try TimeZoneRules.load(identifier, directory: directory).get()
    }
}
