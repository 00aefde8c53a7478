import Foundation
import JobrunCore
import JobrunFiles
import JobrunTestSupport
import Testing

/// Throughput measurements, run by hand in a release build on idle cores (they print their
/// figures and assert the targets):
///
///     head -c 2G /dev/urandom > /tmp/jobrun-hash/blob2g && cat /tmp/jobrun-hash/blob2g > /dev/null
///     JOBRUN_VERIFY_BENCH=1 JOBRUN_VERIFY_BENCH_FILE=/tmp/jobrun-hash/blob2g \
///         swift test -c release -Xswiftc -enable-testing --scratch-path .build-verify \
///         --filter JobrunFilesTests.BenchmarkTests
///
/// Optional: JOBRUN_VERIFY_BENCH_RUNS (best of, default 3), JOBRUN_VERIFY_BENCH_ALGOS
/// (default md5,sha1,sha256,sha384,sha512), JOBRUN_VERIFY_BENCH_DIR (where the 10,000 small
/// files go). The reference for the large file is `bench/lib/hashfile.c FILE ALGO mmap`.
/// Skipped unless JOBRUN_VERIFY_BENCH=1.
@Suite(
    .serialized,
    .enabled(
        if: ProcessInfo.processInfo.environment["JOBRUN_VERIFY_BENCH"] == "1",
        "a benchmark, run by hand: JOBRUN_VERIFY_BENCH=1 in a release build (see BenchmarkTests.swift)"))
struct BenchmarkTests {
    static let environment = ProcessInfo.processInfo.environment
    static let runs = Int(environment["JOBRUN_VERIFY_BENCH_RUNS"] ?? "") ?? 3

    static func seconds(_ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        body()
        let elapsed = clock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    static func peakRSSMiB() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_maxrss) / 1024  // KiB on Linux
    }

    /// check() on one large page-cached file, per algorithm: best of `runs`, in MB/s (10^6).
    @Test(.enabled(if: environment["JOBRUN_VERIFY_BENCH_FILE"] != nil, "needs JOBRUN_VERIFY_BENCH_FILE, a large file to hash"))
    func largeFileThroughput() throws {
        let path = try #require(Self.environment["JOBRUN_VERIFY_BENCH_FILE"])
        let root = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let algorithms = (Self.environment["JOBRUN_VERIFY_BENCH_ALGOS"] ?? "md5,sha1,sha256,sha384,sha512")
            .split(separator: ",").compactMap { DigestAlgorithm(rawValue: String($0)) }
        let checker = FileChecker()
        print(String(format: "BENCH peakRSS before hashing %.0f MiB", Self.peakRSSMiB()))
        for algorithm in algorithms {
            // A wrong expected digest makes check() report the actual one.
            let wrong = Digest(algorithm: algorithm, bytes: Array(repeating: 0, count: algorithm.byteCount))
            let expectation = FileExpectation(root: root, relativePath: name, digests: [wrong])
            var best = Double.infinity
            var result = FileCheck.missing
            for _ in 0..<Self.runs {
                best = min(best, Self.seconds { result = checker.check(expectation) })
            }
            guard case .digestMismatch(_, let actual, let size) = result else {
                Issue.record("\(algorithm): \(result)")
                continue
            }
            print(
                String(
                    format: "BENCH check %@ %ld %.4f s %.0f MB/s peakRSS %.0f MiB %@",
                    algorithm.rawValue, Int(size), best, Double(size) / best / 1e6, Self.peakRSSMiB(), actual.first?.hex ?? "-"))
        }
    }

    /// 10,000 files of 16 KiB with sha256: checkAll at width 1 and 2.
    @Test func manySmallFilesScale() throws {
        let base = Self.environment["JOBRUN_VERIFY_BENCH_DIR"] ?? NSTemporaryDirectory()
        let root = base + "/jobrun-verify-many-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: root) }
        var random = SeededGenerator(seed: 16)
        var expectations: [FileExpectation] = []
        for index in 0..<10_000 {
            let relative = "pkg\(index / 2_000)/raw/s\(index).ts"
            let contents = random.bytes(16 << 10)
            try writeFile(root, relative, contents)
            expectations.append(
                FileExpectation(
                    root: root, relativePath: relative, size: Int64(contents.count),
                    digests: [try Digest.compute(.sha256, of: contents)]))
        }
        // Let writeback of the new files finish first: flusher threads would share the cores.
        sync()
        let checker = FileChecker()
        _ = checker.checkAll(expectations, parallelism: 2)  // warm the dentry and page caches
        var best: [Int: Double] = [:]
        for _ in 0..<Self.runs {
            for width in [1, 2] {
                var results: [FileCheck] = []
                let time = Self.seconds { results = checker.checkAll(expectations, parallelism: width) }
                let allOK = results.allSatisfy { $0.isOK }
                #expect(allOK)
                best[width] = min(best[width] ?? .infinity, time)
            }
        }
        let one = best[1] ?? 0, two = best[2] ?? 0
        print(String(format: "BENCH many 10000x16KiB sha256: width1 %.3f s, width2 %.3f s, speedup %.2fx", one, two, one / two))
        #expect(one / two >= 1.7)
    }

    /// An empty output root: 1,000,000 expected files in 2,000 directories.
    @Test func millionMissingFiles() throws {
        try withTemporaryDirectory { root in
            var expectations: [FileExpectation] = []
            expectations.reserveCapacity(1_000_000)
            let sha = Digest(algorithm: .sha256, bytes: Array(repeating: 7, count: 32))
            for directory in 0..<2_000 {
                for file in 0..<500 {
                    expectations.append(
                        FileExpectation(
                            root: root, relativePath: "lessons/l\(directory)/raw/ts/\(file).ts", size: 65_536, digests: [sha]))
                }
            }
            let checker = FileChecker()
            var best = Double.infinity
            for _ in 0..<Self.runs {
                var results: [FileCheck] = []
                best = min(best, Self.seconds { results = checker.checkAll(expectations) })
                #expect(results.count == 1_000_000 && results.allSatisfy { $0 == .missing })
            }
            print(String(format: "BENCH missing 1000000 files / 2000 dirs: %.3f s", best))
            #expect(best < 0.3)
        }
    }
}
