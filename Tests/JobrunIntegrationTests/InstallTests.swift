import Foundation
import JobrunTestSupport
import Testing

/// `make install` and `make uninstall` under a scratch `DESTDIR` (with `INSTALL_BIN`, the binary
/// under test, so that no release build is needed): the stripped binary, the manual page and the
/// three completion scripts in their standard places, and nothing left after uninstall.
@Suite struct InstallTests {
    static let make = Executables.find("make")
    static let readelf = Executables.find("readelf")

    static let installed = [
        "usr/bin/jobrun", "usr/share/man/man1/jobrun.1", "usr/share/bash-completion/completions/jobrun",
        "usr/share/zsh/site-functions/_jobrun", "usr/share/fish/vendor_completions.d/jobrun.fish",
    ]

    @Test(.enabled(if: make != nil, "make is not installed"))
    func installLaysOutTheFilesAndUninstallRemovesThem() async throws {
        let destination = try TemporaryDirectory(prefix: "jobrun-install")
        defer { destination.remove() }
        let make = BinaryRunner(executable: try #require(Self.make), defaultTimeout: Harness.timeout)
        let arguments = ["-C", try Harness.packageRoot, "DESTDIR=\(destination.path)", "PREFIX=/usr", "INSTALL_BIN=\(try BinaryRunner.locate())"]
        let install = try await make.run(arguments + ["install"], removingEnvironment: Harness.scrubbedEnvironment)
        #expect(install.status == 0, "\(install)")
        for file in Self.installed {
            #expect(destination.exists(file), "make install did not install \(file):\n\(install)")
        }
        let binary = destination.path("usr/bin/jobrun")
        let version = try await BinaryRunner(executable: binary).run(["version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("jobrun "), "\(version)")
        if let readelf = Self.readelf {
            let sections = try await BinaryRunner(executable: readelf).run(["-S", "-W", binary])
            #expect(sections.status == 0 && !sections.stdout.contains(".symtab"), "the installed binary is not stripped:\n\(sections)")
        }
        #expect(destination.contents(of: "usr/share/man/man1/jobrun.1")?.hasPrefix(".Dd ") == true)
        #expect(destination.contents(of: "usr/share/bash-completion/completions/jobrun")?.contains("complete -o filenames -F _jobrun jobrun") == true)
        #expect(destination.contents(of: "usr/share/zsh/site-functions/_jobrun")?.hasPrefix("#compdef jobrun") == true)
        #expect(destination.contents(of: "usr/share/fish/vendor_completions.d/jobrun.fish")?.contains("complete -c 'jobrun'") == true)

        let uninstall = try await make.run(arguments + ["uninstall"], removingEnvironment: Harness.scrubbedEnvironment)
        #expect(uninstall.status == 0, "\(uninstall)")
        for file in Self.installed {
            #expect(!destination.exists(file), "make uninstall left \(file)")
        }
    }
}
