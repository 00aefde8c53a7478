// swift-tools-version:6.0
import Foundation
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "jobrun",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "jobrun", targets: ["jobrun"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        // System libraries: only headers and link flags, no logic in C.
        .systemLibrary(
            name: "CYAML", path: "Sources/CYAML", pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]),
        // libcurl's headers only: JobrunFetch loads the library itself with dlopen (CurlAPI), so
        // no pkg-config (which would add -lcurl); curl.h is on the default include path
        // (Debian's multiarch folder; the macOS SDK).
        .systemLibrary(name: "CCurl", path: "Sources/CCurl"),
        // The mirror state's database (JobrunState): the system SQLite.
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // Debian indexes' compression (JobrunCatalog): the system liblzma and zlib.
        .systemLibrary(
            name: "CCompression", path: "Sources/CCompression", pkgConfig: "liblzma",
            providers: [.apt(["liblzma-dev", "zlib1g-dev"]), .brew(["xz", "zlib"])]),
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        // glibc calls and flags Swift's Glibc module leaves out (declarations, one inline wrapper;
        // empty off Linux).
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        // sd-bus declarations only: JobrunConditions loads libsystemd itself with dlopen
        // (SDBusAPI), so no pkg-config and no libsystemd-dev.
        .systemLibrary(name: "CSDBus", path: "Sources/CSDBus"),

        // A small POSIX kit: threads and mailboxes, file status and identity, descriptors, processes,
        // tree removal, time zones (TZif) and civil dates.
        .target(name: "JobrunSystem", dependencies: ["CLinux"], swiftSettings: strict),
        // The vocabulary: durations, byte counts, digests, URLs, paths, diagnostics.
        .target(name: "JobrunCore", dependencies: ["JobrunSystem"], swiftSettings: strict),
        // Signatures of the lists a manifest reads: minisign and signify (Ed25519 by OpenSSL EVP).
        .target(name: "JobrunTrust", dependencies: ["COpenSSL"], swiftSettings: strict),
        // Manifests and slice lists read, validated and located (libyaml).
        .target(name: "JobrunManifest", dependencies: ["JobrunCore", "JobrunSystem", "JobrunTrust", "CYAML"], swiftSettings: strict),
        // The files on disk for plan, apply and verify: checking and hashing them, extra files.
        .target(
            name: "JobrunFiles", dependencies: ["JobrunCore", "JobrunSystem", "JobrunManifest", "JobrunState", "COpenSSL", "CLinux"], swiftSettings: strict),
        // The plan: what each slice needs, free space, the network policy's verdicts.
        .target(
            name: "JobrunPlan", dependencies: ["JobrunCore", "JobrunSystem", "JobrunManifest", "JobrunFiles", "JobrunState", "JobrunConditions"],
            swiftSettings: strict),
        // Catalogs a resource's slices come from, fetched and trusted before planning.
        .target(
            name: "JobrunCatalog",
            dependencies: ["JobrunCore", "JobrunSystem", "JobrunJSON", "JobrunManifest", "JobrunTrust", "JobrunFetch", "JobrunFiles", "CCompression"],
            swiftSettings: strict),
        // What a run produces (slice outcomes, failures, the result) and its events and observers:
        // below both Run and Report.
        .target(name: "JobrunOutcome", dependencies: ["JobrunCore", "JobrunSystem", "JobrunManifest", "JobrunFiles", "JobrunPlan"], swiftSettings: strict),
        // JSON read and written: the parser of outside documents and the writer of every report.
        .target(name: "JobrunJSON", swiftSettings: strict),
        // Everything written for people and programs: log, progress, JSON, JUnit, events, merges.
        .target(
            name: "JobrunReport",
            dependencies: [
                "JobrunCore", "JobrunSystem", "JobrunJSON", "JobrunManifest", "JobrunFiles", "JobrunPlan", "JobrunOutcome", "JobrunState", "JobrunConditions",
            ],
            swiftSettings: strict),
        // What a mirror remembers between runs: one SQLite database per output root.
        .target(name: "JobrunState", dependencies: ["JobrunCore", "JobrunSystem", "CSQLite"], swiftSettings: strict),
        // The network's conditions (metered, NetworkManager over D-Bus) for the network policy.
        .target(name: "JobrunConditions", dependencies: ["JobrunCore", "JobrunSystem", "CSDBus"], swiftSettings: strict),
        // libcurl engines (loaded with dlopen): event loops, transfers, response heads, rate budgets.
        .target(name: "JobrunFetch", dependencies: ["JobrunCore", "JobrunSystem", "CCurl"], swiftSettings: strict),
        // apply's engine: the run's machine (RunMachine), the driver that carries out its decisions (RunDriver), the store.
        .target(
            name: "JobrunRun",
            dependencies: [
                "JobrunCore", "JobrunSystem", "JobrunManifest", "JobrunFiles", "JobrunPlan", "JobrunFetch", "JobrunOutcome", "JobrunState", "JobrunConditions",
                "CLinux",
            ],
            swiftSettings: strict),
        // Completion hooks: an observer of the run's events with threads of its own, and an outbox
        // in the mirror state.
        .target(
            name: "JobrunHooks",
            dependencies: ["JobrunCore", "JobrunSystem", "JobrunJSON", "JobrunManifest", "JobrunOutcome", "JobrunState"],
            swiftSettings: strict),
        // The commands and their options, reports and exit statuses (swift-argument-parser).
        .target(
            name: "JobrunCLI",
            dependencies: [
                "JobrunCore", "JobrunSystem", "JobrunJSON", "JobrunManifest", "JobrunFiles", "JobrunPlan", "JobrunReport", "JobrunFetch", "JobrunOutcome",
                "JobrunRun", "JobrunCatalog",
                "JobrunState",
                "JobrunConditions",
                "JobrunHooks",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
        // The executable: JobrunCLI's entry point.
        .executableTarget(name: "jobrun", dependencies: ["JobrunCLI"], swiftSettings: strict),
        // For the tests: the fault server, processes, temporary folders, goldens.
        .target(name: "JobrunTestSupport", dependencies: ["JobrunCore", "JobrunSystem"], swiftSettings: strict),

        .testTarget(name: "JobrunCoreTests", dependencies: ["JobrunCore", "JobrunTestSupport"], swiftSettings: strict),
        .testTarget(name: "JobrunSystemTests", dependencies: ["JobrunSystem", "JobrunCore", "JobrunTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "JobrunManifestTests", dependencies: ["JobrunManifest", "JobrunTestSupport"],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(name: "JobrunJSONTests", dependencies: ["JobrunJSON", "JobrunTestSupport"], swiftSettings: strict),
        .testTarget(name: "JobrunTrustTests", dependencies: ["JobrunTrust", "JobrunTestSupport"], swiftSettings: strict),
        .testTarget(name: "JobrunStateTests", dependencies: ["JobrunState", "JobrunTestSupport"], swiftSettings: strict),
        .testTarget(name: "JobrunConditionsTests", dependencies: ["JobrunConditions", "JobrunTestSupport"], swiftSettings: strict),
        .testTarget(name: "JobrunFetchTests", dependencies: ["JobrunFetch", "JobrunTestSupport"], swiftSettings: strict),
        .testTarget(name: "JobrunCatalogTests", dependencies: ["JobrunCatalog", "JobrunTestSupport"], swiftSettings: strict),
        .testTarget(name: "JobrunOutcomeTests", dependencies: ["JobrunOutcome", "JobrunTestSupport"], swiftSettings: strict),
        .testTarget(name: "JobrunHooksTests", dependencies: ["JobrunHooks", "JobrunOutcome", "JobrunState", "JobrunTestSupport"], swiftSettings: strict),
        .testTarget(name: "JobrunRunTests", dependencies: ["JobrunRun", "JobrunOutcome", "JobrunState", "JobrunTestSupport"], swiftSettings: strict),
        .testTarget(name: "JobrunFilesTests", dependencies: ["JobrunFiles", "JobrunState", "JobrunTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "JobrunPlanTests", dependencies: ["JobrunPlan", "JobrunState", "JobrunTestSupport"],
            resources: [.copy("Golden")], swiftSettings: strict),
        .testTarget(
            name: "JobrunReportTests", dependencies: ["JobrunReport", "JobrunPlan", "JobrunTestSupport"],
            resources: [.copy("Golden")], swiftSettings: strict),
        .testTarget(
            name: "JobrunIntegrationTests", dependencies: ["JobrunTestSupport", "jobrun", "JobrunState"],
            resources: [.copy("Corpus"), .copy("Golden")], swiftSettings: strict),
    ]
)

// libFuzzer targets (`make fuzz`, docs/fuzzing.md): only with JOBRUN_FUZZ=1, so that `swift build`
// and `swift test` never see them; they only link with `-sanitize=fuzzer` (fuzz/run.sh), whose
// driver each one's main.swift hands its input function to.
if ProcessInfo.processInfo.environment["JOBRUN_FUZZ"] == "1" {
    let fuzzers: [(name: String, folder: String, dependencies: [Target.Dependency])] = [
        ("FuzzManifest", "manifest", ["FuzzSupport", "JobrunCore", "JobrunManifest"]),
        ("FuzzChecksumList", "checksum-list", ["FuzzSupport", "JobrunCore", "JobrunManifest"]),
        ("FuzzSignature", "signature", ["FuzzSupport", "JobrunTrust"]),
        ("FuzzPlaylist", "hls", ["FuzzSupport", "JobrunCore", "JobrunManifest"]),
        ("FuzzDebian", "debian", ["FuzzSupport", "JobrunCore", "JobrunManifest", "JobrunTrust"]),
        ("FuzzMetalink", "metalink", ["FuzzSupport", "JobrunCore", "JobrunManifest"]),
        ("FuzzResponseHead", "response-head", ["FuzzSupport", "JobrunCore", "JobrunFetch", "JobrunRun"]),
        ("FuzzReportJSON", "report-json", ["FuzzSupport", "JobrunCore", "JobrunJSON", "JobrunReport"]),
        ("FuzzMetrics", "metrics", ["FuzzSupport", "JobrunReport"]),
    ]
    package.targets.append(.systemLibrary(name: "CFuzzer", path: "fuzz/CFuzzer"))
    package.targets.append(.target(name: "FuzzSupport", dependencies: ["CFuzzer"], path: "fuzz/support", swiftSettings: strict))
    for fuzzer in fuzzers {
        package.products.append(.executable(name: fuzzer.name, targets: [fuzzer.name]))
        package.targets.append(
            .executableTarget(name: fuzzer.name, dependencies: fuzzer.dependencies, path: "fuzz/\(fuzzer.folder)", swiftSettings: strict))
    }
}
