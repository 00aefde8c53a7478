import ArgumentParser
import JobrunCore
import JobrunFetch
import JobrunManifest
import JobrunFiles

struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print jobrun's version and the versions of the libraries it uses.")

    func run() {
        StandardOutput.write(
            """
            jobrun \(JobrunVersion.current)
            libcurl \(CurlLibrary.version)
            libyaml \(YAMLParser.libraryVersion)
            \(Digester.openSSLVersion)

            """)
    }
}
