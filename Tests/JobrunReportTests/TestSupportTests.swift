import Foundation
import JobrunTestSupport
import Testing

/// The shared helpers are exercised here because every test target relies on them.
@Suite struct GoldenTests {
    @Test func matchingGoldenPasses() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let golden = try directory.write(file: "Golden/a.txt", contents: "one\ntwo\n")
        #expect(Golden.compare("one\ntwo\n", file: golden, isRecording: false) == nil)
    }

    @Test func mismatchShowsAUnifiedDiff() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let lines = (1...20).map { "line \($0)" }
        let golden = try directory.write(file: "Golden/a.txt", contents: lines.joined(separator: "\n") + "\n")
        var changed = lines
        changed[9] = "line ten"
        changed.insert("inserted", at: 15)
        let failure = try #require(Golden.compare(changed.joined(separator: "\n") + "\n", file: golden, isRecording: false))
        #expect(
            failure == """
                golden mismatch: \(golden)
                --- golden/a.txt
                +++ actual
                @@ -7,12 +7,13 @@
                 line 7
                 line 8
                 line 9
                -line 10
                +line ten
                 line 11
                 line 12
                 line 13
                 line 14
                 line 15
                +inserted
                 line 16
                 line 17
                 line 18
                If the change is intended, re-record with JOBRUN_RECORD_GOLDENS=1 and review the diff.
                """)
    }

    @Test func invisibleDifferencesAreShown() {
        #expect(
            LineDiff.unified(expected: "a\nb\n", actual: "a\nb") == """
                --- expected
                +++ actual
                @@ -1,2 +1,2 @@
                 a
                -b
                +b
                \\ No newline at end of file

                """)
        #expect(LineDiff.unified(expected: "a\n", actual: "a\r\n").contains("+a\\u{d}"))
    }

    @Test func distantChangesGetSeparateHunks() {
        let old = (1...30).map(String.init).joined(separator: "\n") + "\n"
        let new = old.replacingOccurrences(of: "\n2\n", with: "\nTWO\n").replacingOccurrences(of: "\n28\n", with: "\n\n")
        let diff = LineDiff.unified(expected: old, actual: new, context: 1)
        #expect(diff.components(separatedBy: "\n@@ ").count == 3, "\(diff)")
        #expect(diff.contains("@@ -1,3 +1,3 @@\n 1\n-2\n+TWO\n 3\n"))
        #expect(diff.contains("@@ -27,3 +27,3 @@\n 27\n-28\n+\n 29\n"))
    }

    @Test func missingGoldenFailsWithInstructions() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let failure = Golden.compare("x", file: directory.path("Golden/missing.txt"), isRecording: false)
        #expect(failure?.hasPrefix("golden file missing: \(directory.path("Golden/missing.txt"))") == true)
    }

    @Test func recordingWritesTheGoldenAndStillFails() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let golden = directory.path("Golden/nested/new.txt")
        let failure = Golden.compare("fresh\n", file: golden, isRecording: true)
        #expect(failure?.hasPrefix("recorded golden file \(golden)") == true)
        #expect(directory.contents(of: "Golden/nested/new.txt") == "fresh\n")
        // Recording an unchanged golden is a pass: nothing was recorded.
        #expect(Golden.compare("fresh\n", file: golden, isRecording: true) == nil)
    }

    @Test func comparesBytesNotCanonicalEquivalence() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let golden = try directory.write(file: "g.txt", contents: "caf\u{E9}\n")
        let failure = Golden.compare("cafe\u{301}\n", file: golden, isRecording: false)
        #expect(failure?.contains("Unicode normalization") == true)
    }

    @Test func goldenDirectoryIsBesideTheTestFile() {
        #expect(Golden.directory(forTestFile: "/repo/Tests/XTests/FooTests.swift") == "/repo/Tests/XTests/Golden")
    }
}

@Suite struct TemporaryDirectoryTests {
    @Test func createsUniqueDirectoriesAndRemovesThem() throws {
        let a = try TemporaryDirectory()
        let b = try TemporaryDirectory(prefix: "other")
        #expect(a.path != b.path)
        #expect(b.path.split(separator: "/").last?.hasPrefix("other-") == true)
        let file = try a.write(file: "deep/er/file.txt", contents: "hi")
        #expect(file == a.path + "/deep/er/file.txt")
        #expect(a.contents(of: "deep/er/file.txt") == "hi")
        #expect(a.url.path == a.path)
        a.remove()
        b.remove()
        #expect(!FileManager.default.fileExists(atPath: a.path))
        #expect(!FileManager.default.fileExists(atPath: b.path))
    }

    @Test func withRemovesAfterwards() async throws {
        let path = try await TemporaryDirectory.with { directory in
            try directory.write(file: "x", contents: "")
            return directory.path
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}

@Suite struct BinaryRunnerTests {
    let shell = BinaryRunner(executable: "/bin/sh", defaultTimeout: .seconds(30))

    @Test func capturesStatusAndBothStreams() async throws {
        let result = try await shell.run(["-c", "printf out; printf err >&2; exit 3"])
        #expect(result == RunResult(status: 3, stdout: "out", stderr: "err"))
    }

    /// Both pipes far beyond their 64 KiB buffers at once: reading them one after the other would hang.
    @Test func drainsLargeOutputOnBothStreamsConcurrently() async throws {
        let script = "head -c 3000000 /dev/zero | tr '\\0' o; head -c 2000000 /dev/zero | tr '\\0' e >&2"
        let result = try await shell.run(["-c", script])
        #expect(result.status == 0)
        #expect(result.stdout.utf8.count == 3_000_000)
        #expect(result.stderr.utf8.count == 2_000_000)
    }

    @Test func environmentIsInheritedOverriddenAndRemoved() async throws {
        let result = try await shell.run(
            ["-c", #"printf '%s|%s|%s' "$JOBRUN_TEST_SET" "${HOME-unset}" "${PATH:+path}""#],
            environment: ["JOBRUN_TEST_SET": "value with spaces"], removingEnvironment: ["HOME"])
        #expect(result.stdout == "value with spaces|unset|path")
    }

    @Test func runsInTheWorkingDirectoryWithStdinAtEOF() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await shell.run(["-c", "pwd -P; cat; echo done"], workingDirectory: directory.path)
        let expected = (directory.path as NSString).resolvingSymlinksInPath
        #expect(result.stdout == "\(expected)\ndone\n")
    }

    /// SIGTERM must work: children of test threads would otherwise inherit a mask that blocks it.
    /// Blocking, so that the clock measures the run: an `await` can resume long after the run
    /// ended when other tests hold the few threads that run Swift tasks (under load, tens of
    /// seconds later).
    @Test func killsAfterTheTimeout() throws {
        let start = ContinuousClock.now
        let result = try BinaryRunner(executable: "/bin/sleep").runBlocking(["30"], timeout: .milliseconds(300))
        #expect(result.hasTimedOut)
        #expect(result.signal == SIGTERM)
        #expect(result.status == 128 + SIGTERM)
        // Far below the child's 30 s, with room for a loaded machine; a timing bound, not a benchmark.
        #expect(ContinuousClock.now - start < .seconds(25))
    }

    @Test func reportsSignals() throws {
        let result = try shell.runBlocking(["-c", "kill -KILL $$"])
        #expect(result.signal == SIGKILL)
        #expect(!result.hasTimedOut)
    }

    @Test func missingExecutableThrows() async {
        await #expect(throws: ProcessLaunchError.self) {
            try await BinaryRunner(executable: "/nonexistent/jobrun").run([])
        }
    }

    @Test func locatingAMissingProductListsWhereItLooked() {
        #expect {
            try BinaryRunner.locate(product: "no-such-product")
        } throws: { error in
            "\(error)".contains("no-such-product") && "\(error)".contains("Looked at:")
        }
        #if os(Linux)
        // The products directory is the one holding the test runner executable.
        let productsDirectory = (CommandLine.arguments[0] as NSString).deletingLastPathComponent
        #expect {
            try BinaryRunner.locate(product: "no-such-product")
        } throws: { error in
            "\(error)".contains(productsDirectory + "/no-such-product")
        }
        #endif
    }
}

@Suite struct PollTests {
    @Test func returnsAsSoonAsTheConditionHolds() async {
        var calls = 0
        // Polling that went on after the first success would call the condition again: the count
        // shows where it stopped, whatever the machine's load (a wall-clock bound measured how
        // long the test's thread waited for a turn, not the poll).
        let held = await Poll.until(timeout: .seconds(120), interval: .milliseconds(1)) {
            calls += 1
            return calls == 3
        }
        #expect(held)
        #expect(calls == 3)
    }

    @Test func givesUpAtTheDeadline() async {
        var calls = 0
        let held = await Poll.until(timeout: .milliseconds(50), interval: .milliseconds(5)) {
            calls += 1
            return false
        }
        #expect(!held)
        #expect(calls >= 2)
    }
}

@Suite struct SharedPathsTests {
    @Test func findsThePackageRoot() throws {
        let root = try #require(SharedPaths.packageRoot(startingAt: #filePath))
        #expect(FileManager.default.fileExists(atPath: root + "/Package.swift"))
    }

    @Test(.needsJUnitSchemas) func findsTheSchemas() throws {
        #expect(try SharedPaths.junitSchemas().count >= 2)
    }

    /// `JOBRUN_JUNIT_XSD_DIR` wins over `JOBRUN_SHARED_DIR`, which wins over `shared/` beside the
    /// package; an empty variable counts as unset.
    @Test func theSchemaFolderVariableWinsOverTheSharedFolder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let own = try directory.write(file: "own/a.xsd", contents: "")
        let beside = try directory.write(file: "shared/xsd/b.xsd", contents: "")
        let moved = try directory.write(file: "elsewhere/xsd/c.xsd", contents: "")
        let root = try directory.makeDirectory("jobrun")
        let xsd = SharedPaths.junitSchemaDirectoryVariable, shared = SharedPaths.sharedDirectoryVariable
        let cases: [(SharedPaths.Environment, String)] = [
            ([:], beside),
            ([xsd: "", shared: ""], beside),
            ([shared: directory.path("elsewhere")], moved),
            ([xsd: directory.path("own"), shared: directory.path("elsewhere")], own),
        ]
        for (environment, expected) in cases {
            let schemas = try SharedPaths.junitSchemas(environment: environment, packageRoot: root)
            #expect(schemas == [(expected as NSString).standardizingPath], "\(environment)")
            #expect(SharedPaths.junitSchemasMissing(environment: environment, packageRoot: root) == nil, "\(environment)")
        }
    }

    /// Nothing beside the package and nothing configured: the checks are skipped and the reason
    /// names the folder looked for and the variable. A variable that is set and wrong, or an
    /// empty schema folder, is not skipped: the lookup fails and says where it looked.
    @Test func aCloneWithNothingBesideItSkipsTheSchemaChecksAndSaysWhy() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let root = try directory.makeDirectory("lonely/jobrun")
        let reason = try #require(SharedPaths.junitSchemasMissing(environment: [:], packageRoot: root))
        let expectedFolder = (directory.path("lonely/shared/xsd") as NSString).standardizingPath
        #expect(reason.contains("\(expectedFolder) does not exist") && reason.contains(SharedPaths.junitSchemaDirectoryVariable), "\(reason)")
        #expect(throws: SharedPaths.NotFound.self) { try SharedPaths.junitSchemas(environment: [:], packageRoot: root) }

        let empty = try directory.makeDirectory("empty")
        let misconfigured: [(SharedPaths.Environment, String)] = [
            ([SharedPaths.junitSchemaDirectoryVariable: directory.path("nowhere")], "JOBRUN_JUNIT_XSD_DIR=\(directory.path("nowhere")) is not a directory"),
            ([SharedPaths.sharedDirectoryVariable: directory.path("nowhere")], "JOBRUN_SHARED_DIR=\(directory.path("nowhere")) is not a directory"),
            ([SharedPaths.junitSchemaDirectoryVariable: empty], "no .xsd files in \((empty as NSString).standardizingPath)"),
        ]
        for (environment, message) in misconfigured {
            #expect(SharedPaths.junitSchemasMissing(environment: environment, packageRoot: root) == nil, "\(environment)")
            let error = #expect(throws: SharedPaths.NotFound.self) {
                try SharedPaths.junitSchemas(environment: environment, packageRoot: root)
            }
            #expect(error?.message == message)
        }
    }

    @Test func xmllintIsInstalled() {
        #expect(XMLLint.executable != nil, "install libxml2-utils: the schema tests need xmllint")
    }
}
