import ArgumentParser
import JobrunCore
import JobrunReport
import JobrunSystem
import JobrunJSON

/// `jobrun report`: work on reports that runs wrote.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Work on the reports runs wrote: merge the results of a sharded run.",
        subcommands: [ReportMergeCommand.self])
}

/// `jobrun report merge FILES… [--json OUT] [--junit OUT]` (docs/sharding.md).
struct ReportMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the 'apply --json' results of the shards of one run into one result and JUnit report.",
        discussion: """
            Each FILE is what 'jobrun apply --shard K/N --json' printed. The set must
            be one plan: the same N and the same manifests (the plan fingerprint
            every shard's result carries), every K from 0 to N-1 exactly once, and no
            slice in two shards; what breaks that is said, one line each, and the
            merge exits 1 (still writing what it could). The merged result has the
            shape of 'apply --json' (resources by id, slices by path), with 'shards'
            (the file, index, run id and outcome of each) and 'problems'; the JUnit
            report has the test cases 'apply --junit' writes, every slice's once.
            Without --json and --junit, the JSON goes to stdout.
            Exit status: 0 when every shard completed, 1 when a slice or a hook
            failed or the set is not one plan, 75 when a shard stopped early (its
            deadline, the network, a signal) with nothing failed: run that shard
            again.
            """)

    @Argument(help: ArgumentHelp("The shards' 'apply --json' results.", valueName: "files"))
    var files: [String]

    @Option(name: .long, help: ArgumentHelp("Write the merged result here ('-': stdout).", valueName: "file"))
    var json: String?

    @Option(name: .long, help: ArgumentHelp("Write the merged JUnit XML report here.", valueName: "file"))
    var junit: String?

    func validate() throws {
        if files.isEmpty { throw ValidationError("name the shards' result files") }
    }

    func run() throws {
        var inputs: [ShardMerge.Input] = []
        var unreadable = false
        for file in files {
            switch FileReader.read(file, limit: 1 << 32) {
            case .failure(let error):
                StandardError.write("jobrun: error: cannot read '\(file)': \(error)\n")
                unreadable = true
            case .success(let bytes):
                switch JSONParser.parse(bytes) {
                case .success(let document): inputs.append(ShardMerge.Input(name: file, document: document))
                case .failure(let failure):
                    StandardError.write("jobrun: error: '\(file)' is not JSON: \(failure)\n")
                    unreadable = true
                }
            }
        }
        let merged = ShardMerge.merge(inputs)
        for problem in merged.problems { StandardError.write("jobrun: error: \(problem)\n") }
        let rendered = merged.document.renderedBytes(pretty: true)
        if json == "-" || (json == nil && junit == nil) {
            StandardOutput.write(bytes: rendered, what: "the merged JSON result to stdout")
        } else if let json {
            OutputFiles.prepareParent(of: json)
            Reports.attempt("the merged JSON result '\(json)'") { try AtomicFile.write(rendered, to: json) }
        }
        if let junit {
            let report = ReportClock.finish(ShardMerge.junit(merged.document, timestamp: ReportClock.timestamp(Date()), hostname: ReportClock.hostname))
            OutputFiles.prepareParent(of: junit)
            Reports.attempt("the merged JUnit report '\(junit)'") { try report.write(to: junit) }
        }
        StandardError.write(Self.summaryLine(merged.document) + "\n")
        let status = unreadable ? ExitStatus.failure : merged.exitStatus
        if status != .ok { throw ExitCode(status.rawValue) }
    }

    /// `Merged 4 of 4 shards: 412 fetched (26.3 MiB), 3 resumed, 188 up to date, 0 failed, 0 skipped, 0 deferred.`
    static func summaryLine(_ document: JSONValue) -> String {
        let s = document["summary"]
        func n(_ key: String) -> Int64 { s?[key]?.intValue ?? 0 }
        let shards = document["shards"]?.arrayValue?.count ?? 0
        let count = document["shard"]?["count"]?.intValue.map(String.init) ?? "?"
        return
            "Merged \(shards) of \(count) shards: \(n("fetched")) fetched (\(ByteCount(n("bytes_transferred"))))\(n("repaired") == 0 ? "" : ", \(n("repaired")) repaired"), \(n("resumed")) resumed, \(n("up_to_date")) up to date, \(n("failed")) failed, \(n("skipped")) skipped, \(n("deferred")) deferred."
    }
}
