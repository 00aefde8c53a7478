import Foundation
import JobrunTestSupport
import Testing

/// The tools `packaging/check-deb.sh` uses (`make deps` installs them).
let packagingToolsAvailable = ["dpkg-deb", "dpkg-shlibdeps", "lintian", "man", "systemd-analyze", "apt-get"].allSatisfy { Executables.find($0) != nil }

/// The Debian package (`make deb`) as `packaging/build-deb.sh` makes it, from the binary under
/// test, and as `packaging/check-deb.sh` takes it: lintian, a throwaway install, `jobrun version`,
/// `man -w jobrun`, the template units through `systemd-analyze verify`, a clean removal.
@Suite(.enabled(if: packagingToolsAvailable, "needs dpkg-dev, lintian, man-db and systemd-analyze (make deps)"))
struct DebianPackageTests {
    @Test func thePackageInstallsRunsAndRemovesCleanly() async throws {
        let root = try Harness.packageRoot
        let out = try TemporaryDirectory(prefix: "jobrun-deb")
        defer { out.remove() }
        let shell = BinaryRunner(executable: "/bin/bash", defaultTimeout: .seconds(300))
        let built = try await shell.run([root + "/packaging/build-deb.sh", try BinaryRunner.locate(), out.path])
        #expect(built.status == 0, "\(built)")
        let deb = built.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(deb.hasSuffix(".deb") && FileManager.default.fileExists(atPath: deb), "\(built)")

        let contents = try await BinaryRunner(executable: "/usr/bin/dpkg-deb").run(["--contents", deb])
        for file in [
            "./usr/bin/jobrun", "./usr/share/man/man1/jobrun.1.gz", "./usr/share/bash-completion/completions/jobrun",
            "./usr/share/zsh/vendor-completions/_jobrun", "./usr/share/fish/vendor_completions.d/jobrun.fish",
            "./usr/share/doc/jobrun/examples/demo/demo.yaml", "./usr/share/doc/jobrun/examples/monitoring/jobrun-alerts.yml",
            "./usr/share/jobrun/manifest.schema.json", "./lib/systemd/system/jobrun@.service", "./lib/systemd/system/jobrun@.timer",
            "./usr/share/doc/jobrun/copyright",
        ] {
            #expect(contents.stdout.contains(" \(file)\n"), "\(file) is not in the package: \(contents.stdout)")
        }
        let control = try await BinaryRunner(executable: "/usr/bin/dpkg-deb").run(["--field", deb, "Depends"])
        for library in ["libyaml-0-2", "libsqlite3-0", "libssl3", "libcurl4"] {
            #expect(control.stdout.contains(library), "Depends lacks \(library): \(control.stdout)")
        }

        // A debug build finds the toolchain's Swift runtime by RUNPATH, which lintian rightly calls
        // an error; the release binary `make deb` packages links it statically and is allowed nothing.
        let checked = try await shell.run([root + "/packaging/check-deb.sh", "--allow-tag", "custom-library-search-path", deb])
        #expect(checked.status == 0 && checked.stdout.contains("removes cleanly"), "\(checked)")
    }
}
