import JobrunCore
public import JobrunManifest
public import JobrunFiles
import JobrunJSON

/// Renders a ``MirrorVerification`` for people (sigil lines), for programs (JSON) and for CI (JUnit).
public enum VerifyReports {
    /// The stable summary line: `Verify: 598 ok, 1 mismatched, 1 missing, 0 errors`, with
    /// `, 3 extra` when extra files were looked for (`--extra`), and `, 2 jobrun working files`
    /// when some of jobrun's own were found with them; then, when files passed without
    /// a digest, ``IntegrityCounts/summaryClause`` (`; 6 without digests (2 size only, 4
    /// unverified)`; they are in `ok` unless digests are required, which makes them failures);
    /// then how the files that passed were proven, ``CheckProofs/summaryClause`` (`; 592 proven by
    /// hashing`), and the period.
    public static func summaryLine(_ v: MirrorVerification) -> String {
        let c = v.counts
        var extra = v.extraFiles.map { ", \($0.count) extra" } ?? ""
        if let working = v.workingFiles, !working.isEmpty {
            extra += ", \(working.count) jobrun working file\(working.count == 1 ? "" : "s")"
        }
        return
            "Verify: \(c.ok) ok, \(c.mismatched) mismatched, \(c.missing) missing, \(c.errors) error\(c.errors == 1 ? "" : "s")\(extra)\(c.withoutDigests.summaryClause)\(v.proofs.summaryClause)."
    }

    /// One line per slice (`=` ok, `~` size only, `?` unverified, `*` differs, `-` missing,
    /// `!` error), `#` per extra file, `%` per working file of jobrun's, then the summary. With `problemsOnly`, `=` lines are left
    /// out: a file that passed without a digest is not proven, so its line stays.
    public static func text(_ v: MirrorVerification, problemsOnly: Bool) -> String {
        var out = ""
        let refused = v.counts.requiresDigests ? ", refused by --require-digests" : ""
        for entry in v.entries {
            for (s, check) in zip(entry.resource.slices, entry.checks) {
                let path = entry.resource.filePath(of: s)
                switch check {
                case .ok:
                    switch s.integrity {
                    case .digest: if !problemsOnly { out += "= \(path)\n" }
                    case .sizeOnly: out += "~ \(path): size only (no digest declared)\(refused)\n"
                    case .unverified: out += "? \(path): unverified (no digest or size declared)\(refused)\n"
                    }
                case .missing:
                    out += "- \(path): missing\n"
                case .sizeMismatch(let expected, let actual):
                    out += "* \(path): size differs: expected \(expected) bytes, actual \(actual)\n"
                case .digestMismatch(_, let actual, _):
                    out += "* \(path): \(Digest.mismatchDescription(expected: s.digests, actual: actual))\n"
                case .notRegularFile:
                    out += "! \(path): \(check.wrongKindText ?? "") (jobrun never follows links)\n"
                case .ioError(let bad, _, let message):
                    out += "! \(path): cannot read '\(bad)': \(message)\n"
                }
            }
        }
        for extra in v.extraFiles ?? [] { out += "# \(extra): named by no manifest\n" }
        for working in v.workingFiles ?? [] { out += "% \(working): \(describeWorkingFile(working))\n" }
        for e in v.scanErrors { out += "! \(e.path): cannot list the folder: \(e.message)\n" }
        out += summaryLine(v) + "\n"
        return out
    }

    /// What a working file of jobrun's at `path` is, and whose.
    static func describeWorkingFile(_ path: String) -> String {
        let (folder, name) = SlashPath.split(path)
        let owner = WorkingFileName.fileName(ofWorkingFile: String(name)).map { folder.isEmpty ? $0 : folder + "/" + $0 } ?? "?"
        switch WorkingFileName.kind(of: name) {
        case .partial: return "jobrun's partial download of \(owner)"
        case .metadata: return "jobrun's resume metadata of \(owner)"
        case nil: return "a working file of jobrun's"
        }
    }

    /// The JSON `status`: `no_digest` is a file that passed its declared checks, failed by
    /// `--require-digests` for declaring no digest.
    static func status(_ check: FileCheck, _ integrity: SliceIntegrity, requiresDigests: Bool) -> String {
        switch check {
        case .ok: integrity != .digest && requiresDigests ? "no_digest" : "ok"
        case .missing: "missing"
        case .sizeMismatch: "size_mismatch"
        case .digestMismatch: "checksum_mismatch"
        case .notRegularFile: "not_regular_file"
        case .ioError: "io_error"
        }
    }

    /// `jobrun verify --json`: versioned, deterministic (`run_id`, when given, is the one field
    /// that differs between runs unless `JOBRUN_RUN_ID` fixes it). Its `format_version` is 2:
    /// jobrun's own working files are in `working_files`, apart from `extra`.
    public static func json(_ v: MirrorVerification, runID: String? = nil, shard: ShardSelection? = nil) -> [UInt8] {
        var w = JSONWriter(pretty: true, reservingCapacity: 200 * max(1, v.counts.slices))
        w.beginObject()
        w.key("format_version"); w.int(2)
        w.key("jobrun_version"); w.string(JobrunVersion.current)
        if let runID { w.key("run_id"); w.string(runID) }
        w.key("shard"); w.shard(shard)
        w.key("summary")
        w.beginObject()
        w.key("slices"); w.int(Int64(v.counts.slices))
        w.key("ok"); w.int(Int64(v.counts.ok))
        w.key("mismatched"); w.int(Int64(v.counts.mismatched))
        w.key("missing"); w.int(Int64(v.counts.missing))
        w.key("errors"); w.int(Int64(v.counts.errors))
        w.key("extra"); if let e = v.extraFiles { w.int(Int64(e.count)) } else { w.null() }
        w.key("size_only"); w.int(Int64(v.counts.withoutDigests.sizeOnly))
        w.key("unverified"); w.int(Int64(v.counts.withoutDigests.unverified))
        w.key("digests_required"); w.bool(v.counts.requiresDigests)
        w.key("proven_by_hashing"); w.int(Int64(v.proofs.hashed))
        w.key("unchanged_since_proven"); w.int(Int64(v.proofs.recognized))
        w.key("all_ok"); w.bool(v.counts.isAllOK)
        w.endObject()
        w.key("resources")
        w.beginArray()
        for entry in v.entries {
            let r = entry.resource
            w.beginObject()
            w.key("id"); w.string(r.id)
            w.key("manifest"); w.string(r.location.description)
            w.key("slices")
            w.beginArray()
            for (s, check) in zip(r.slices, entry.checks) {
                w.beginObject()
                w.key("path"); w.string(s.path)
                w.key("file"); w.string(r.filePath(of: s))
                w.key("identity"); w.string(r.identity(of: s))
                w.key("status"); w.string(status(check, s.integrity, requiresDigests: v.counts.requiresDigests))
                w.key("integrity"); w.string(s.integrity.rawValue)
                w.key("expected")
                w.beginObject()
                w.key("size"); if let size = s.size { w.int(size) } else { w.null() }
                for d in s.digests { w.key(d.algorithm.rawValue); w.string(d.hex) }
                w.endObject()
                switch check {
                case .ok(let size, let digests):
                    w.key("actual")
                    w.beginObject()
                    w.key("size"); w.int(size)
                    for d in digests { w.key(d.algorithm.rawValue); w.string(d.hex) }
                    w.endObject()
                case .sizeMismatch(_, let actual):
                    w.key("actual"); w.beginObject(); w.key("size"); w.int(actual); w.endObject()
                case .digestMismatch(_, let actual, let size):
                    w.key("actual")
                    w.beginObject()
                    w.key("size"); w.int(size)
                    for d in actual { w.key(d.algorithm.rawValue); w.string(d.hex) }
                    w.endObject()
                case .notRegularFile:
                    w.key("message"); w.string(check.wrongKindText ?? "")
                case .ioError(let bad, _, let message):
                    w.key("message"); w.string("cannot read '\(bad)': \(message)")
                case .missing:
                    break
                }
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        w.endArray()
        w.key("extra")
        if let extra = v.extraFiles {
            w.beginArray()
            for e in extra { w.string(e) }
            w.endArray()
        } else {
            w.null()
        }
        w.key("working_files")
        if let working = v.workingFiles {
            w.beginArray()
            for path in working {
                let name = SlashPath.split(path).name
                w.beginObject()
                w.key("path"); w.string(path)
                w.key("kind"); w.string(WorkingFileName.kind(of: name) == .metadata ? "metadata" : "partial")
                w.endObject()
            }
            w.endArray()
        } else {
            w.null()
        }
        w.endObject()
        return w.finish()
    }

    /// One `<testsuite>` per resource, one `<testcase>` per slice (classname = resource id, name =
    /// slice path); `<failure type="ChecksumMismatch|SizeMismatch|Missing">` (and `NoDigest` with
    /// `--require-digests`), `<error>` for I/O. Slices that passed without a digest are listed in
    /// the suite's `<system-out>` (``IntegrityNotes``). Every suite's properties name the run
    /// (`run_id`), when given.
    public static func junit(_ v: MirrorVerification, timestamp: JUnitReport.Timestamp, hostname: String, runID: String? = nil) -> JUnitReport {
        var suites: [JUnitReport.Suite] = []
        for entry in v.entries {
            let r = entry.resource
            var cases: [JUnitReport.TestCase] = []
            cases.reserveCapacity(r.slices.count)
            var notes = IntegrityNotes()
            for (s, check) in zip(r.slices, entry.checks) {
                let path = r.filePath(of: s)
                let result: JUnitReport.TestCase.Result
                switch check {
                case .ok(let size, _) where s.integrity != .digest && v.counts.requiresDigests:
                    result = .failure(
                        type: "NoDigest", message: "\(s.integrity.word): \(s.integrity.explanation) (--require-digests)",
                        text: "file: \(path)\nsize: \(size)")
                case .ok(_, let digests):
                    result = .passed
                    notes.note(s.path, s.integrity, sha256: digests.first { $0.algorithm == .sha256 })
                case .missing:
                    result = .failure(type: "Missing", message: "\(path) is missing", text: "expected \(expectation(s)) at \(path); no file is there")
                case .sizeMismatch(let expected, let actual):
                    result = .failure(
                        type: "SizeMismatch", message: "size differs: expected \(expected) bytes, actual \(actual)",
                        text: "file: \(path)\nexpected size: \(expected)\nactual size: \(actual)")
                case .digestMismatch(let expected, let actual, let size):
                    result = .failure(
                        type: "ChecksumMismatch", message: "\(expected.algorithm.rawValue) differs",
                        text: "file: \(path)\n\(Digest.comparisonLines(expected: s.digests, actual: actual))size: \(size)")
                case .notRegularFile:
                    result = .error(
                        type: "NotRegularFile", message: check.wrongKindText ?? "",
                        text: "file: \(path)\njobrun never follows symbolic links in a mirror")
                case .ioError(let bad, let code, let message):
                    result = .error(type: "IOError", message: "cannot read '\(bad)': \(message)", text: "file: \(path)\nerrno: \(code)")
                }
                let seconds = entry.seconds.isEmpty ? 0 : Double(entry.seconds[cases.count])
                cases.append(.init(classname: r.id, name: s.path, time: .nanoseconds(Int64((seconds * 1e9).rounded())), result: result))
            }
            suites.append(
                .init(
                    name: r.id, package: "jobrun.verify", timestamp: timestamp, hostname: hostname, time: nil,
                    properties: JUnitReport.Property.describing(r, runID: runID),
                    testCases: cases, systemOut: notes.systemOut))
        }
        return JUnitReport(suites: suites)
    }

    static func expectation(_ s: Slice) -> String {
        var parts: [String] = []
        if let size = s.size { parts.append("\(size) bytes") }
        for d in s.digests { parts.append("\(d.algorithm.rawValue) \(d.hex)") }
        return parts.isEmpty ? "a file" : parts.joined(separator: ", ")
    }
}

extension JUnitReport.Property {
    /// A resource's `<properties>` in the reports of `verify` and `apply`: where it was declared,
    /// where it is written, by which jobrun, and in which run (`run_id`, when given).
    public static func describing(_ r: Resource, runID: String? = nil) -> [JUnitReport.Property] {
        [
            .init(name: "manifest", value: r.location.description),
            .init(name: "output", value: r.outputRoot),
            .init(name: "dest", value: r.dest),
            .init(name: "jobrun_version", value: JobrunVersion.current),
        ] + (runID.map { [.init(name: "run_id", value: $0)] } ?? [])
    }
}

extension VerifyReports {
    /// `verify --record-sums`: per resource (in the report's order), the SHA-256 of every file
    /// that passed, slice by slice; verify was run with SHA-256 computed for every file
    /// (`MirrorVerifier.verify(alsoComputing: .sha256)`).
    public static func checksumLists(_ v: MirrorVerification) -> [(id: String, list: ChecksumList)] {
        v.entries.map { entry in
            var list = ChecksumList()
            for (s, check) in zip(entry.resource.slices, entry.checks) {
                guard case .ok(_, let digests) = check, let sha256 = digests.first(where: { $0.algorithm == .sha256 }) else { continue }
                list.lines.append(.init(path: s.path, digest: sha256))
            }
            return (entry.resource.id, list)
        }
    }
}
