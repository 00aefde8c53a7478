import FuzzSupport
import JobrunReport

// The input is the metrics file a run replaces, whose last successes it carries over. Whatever it
// holds, reading it never traps; a run written over it is read back with every sample it wrote
// (a label value that went in comes out the same), and writing it again gives the same bytes.
fuzzerMain { data, size in
    let previous = PrometheusSample.read(Array(fuzzInput(data, size)))
    var run = RunMetrics(command: "apply", runID: "01FUZZ", endedAtMilliseconds: 1_800_000_000_000)
    run.exitStatus = 1
    // The resources the fuzzed file names, so that their successes are carried over.
    var ids: [String] = []
    for sample in previous.prefix(50) { if let id = sample.labels["resource"], !ids.contains(id) { ids.append(id) } }
    run.refusedCatalogs = ids
    var resource = RunMetrics.Resource(id: ids.first ?? "r")
    resource.slices[.failed] = 1
    run.resources = [resource]
    let written = MetricsReport.render(run, previous: previous)
    let lines = written.split(separator: UInt8(ascii: "\n")).filter { $0.first != UInt8(ascii: "#") }
    let read = PrometheusSample.read(written)
    require(read.count == lines.count, "a sample jobrun wrote does not read back")
    require(read.contains { $0.labels["resource"] == resource.id }, "a resource's label did not read back as written")
    require(MetricsReport.render(run, previous: previous) == written, "the same run over the same file was written differently")
    return 0
}
