import JobrunCore
import Testing
@testable import JobrunManifest

@Suite struct ManifestDecoderTests {
    static let full = """
        version: 1
        defaults:
          output: ./mirror
          concurrency: {total: 16, per_host: 4}
          retries: {attempts: 5, backoff: {initial: 1s, max: 2m, multiplier: 2}}
          timeouts: {connect: 10s, request: 60s, resource: 1h}
          headers: {User-Agent: "mirror-bot/1", Authorization: "Bearer ${MIRROR_TOKEN}"}
          network: {cellular: false, discretionary: false}
        resources:
          - id: intro
            base_url: https://cdn.example.com/intro/
            slices:
              - path: index.json
          - id: lesson-a
            base_url: https://cdn.example.com/class/923373023660117946/
            dest: lessons/a
            depends_on: [intro]
            checksum: sha256
            headers: {X-Trace: abc, user-agent: "lesson-bot/2"}
            retries: {attempts: 2}
            network: {cellular: true}
            slices:
              - path: raw/ts/669b14bd.ts
                size: 64KiB
                sha256: 9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08
              - path: cover.png
                url: https://img.example.com/cover.png?sig=abc
                md5: 0cc175b9c0f1b6a831c399e269772661
                sha1: 86f7e437faa5a7fce15d1ddcb9eaeaea377667b8
            slices_from: lesson-a.sha256sums
        """

    static let sums = """
        # made by sha256sum
        2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824  raw/ts/0001.ts
        486ea46224d1bb4fb680f34f7c9ad96a8f24ec88be73ea8e5a6c65260e9cb8a7 *raw/ts/0002.ts
        \\fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9  raw/ts/back\\\\slash\\nname.ts

        """

    @Test func decodesTheIssueExample() throws {
        let loaded = try loadManifests(["m.yaml": Self.full, "lesson-a.sha256sums": Self.sums], environment: ["MIRROR_TOKEN": "s3cr3t"])
        // The escaped name holds a backslash and a line feed, which destinations refuse; the line feed
        // is named, at its escape (a message quoting the name would break); everything else is fine.
        #expect(
            loaded.rendered == """
                lesson-a.sha256sums:4:86: error: slice path contains U+000A, a control character
                \\fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9  raw/ts/back\\\\slash\\nname.ts
                                                                                                     ^

                """)
        #expect(loaded.manifest == nil)
    }

    @Test func decodesDefaultsOverridesAndSlices() throws {
        let sums = String(Self.sums.split(separator: "\n").prefix(3).joined(separator: "\n")) + "\n"
        let loaded = try loadManifests(["m.yaml": Self.full, "lesson-a.sha256sums": sums], environment: ["MIRROR_TOKEN": "s3cr3t"])
        #expect(loaded.rendered == "")
        let m = try #require(loaded.manifest)
        #expect(m.resources.map(\.id) == ["intro", "lesson-a"])
        let intro = m.resources[0]
        #expect(intro.dest == "intro")  // dest defaults to the id
        #expect(intro.outputRoot == "mirror")
        #expect(intro.settings.retries.attempts == 5)
        #expect(intro.settings.retries.backoff.maximum == .seconds(120))
        #expect(intro.settings.timeouts.resource == .seconds(3600))
        let a = m.resources[1]
        #expect(a.dest == "lessons/a")
        #expect(a.dependsOn.map(\.id) == ["intro"])
        #expect(a.checksum == .sha256)
        #expect(a.settings.retries.attempts == 2)
        #expect(a.settings.retries.backoff.initial == .seconds(1))  // inherited inside an overridden mapping
        #expect(a.settings.network.allowsCellular)
        #expect(a.settings.concurrency.perHost == 4)
        // Headers merge by name, case-insensitively, and secrets are marked.
        let headers = a.settings.headers
        #expect(headers.map(\.name) == ["Authorization", "user-agent", "X-Trace"])
        #expect(headers[0].value == "Bearer s3cr3t")
        #expect(headers[0].isSecret)
        #expect(headers[0].displayValue == "<redacted>")
        #expect(headers[1].value == "lesson-bot/2")
        #expect(a.slices.count == 4)
        let ts = a.slices[0]
        #expect(ts.path == "raw/ts/669b14bd.ts")
        #expect(ts.size == 65536)
        #expect(ts.digests.map(\.hex) == ["9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"])
        #expect(a.url(of: ts) == "https://cdn.example.com/class/923373023660117946/raw/ts/669b14bd.ts")
        #expect(a.relativePath(of: ts) == "lessons/a/raw/ts/669b14bd.ts")
        let cover = a.slices[1]
        #expect(cover.digests.map(\.algorithm) == [.md5, .sha1])
        #expect(a.url(of: cover) == "https://img.example.com/cover.png?sig=abc")
        #expect(a.identity(of: cover) == "https://img.example.com/cover.png")
        #expect(a.slices[2].path == "raw/ts/0001.ts")
        #expect(a.slices[3].path == "raw/ts/0002.ts")
        #expect(a.slices[3].location.line == 3)
        #expect(a.slices[3].location.file.hasSuffix("lesson-a.sha256sums"))
    }

    @Test func reportsEveryMistakeAtOnceInOrder() throws {
        let text = try diagnose(
            """
            version: 1
            defaults:
              retries: {attempts: 0, backof: {initial: 1s}}
              network: {cellular: yes}
              timeouts: {connect: 10}
            resources:
              - id: a
                base_url: https://user:pw@cdn.example.com/
                checksumm: sha256
                slices:
                  - path: /etc/passwd
                    size: -1
                  - path: ok.ts
                    sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0z
            """)
        #expect(
            text == """
                m.yaml:3:23: error: 'attempts' is out of range: 0 (allowed: 1…100)
                  retries: {attempts: 0, backof: {initial: 1s}}
                                      ^
                m.yaml:3:26: error: unknown key 'backof' in 'retries' (did you mean 'backoff'?)
                  retries: {attempts: 0, backof: {initial: 1s}}
                                         ^
                m.yaml:4:23: error: 'cellular' must be true or false; 'yes' is a YAML 1.1 boolean, which jobrun does not accept
                  network: {cellular: yes}
                                      ^
                m.yaml:5:23: error: 'connect' is not a valid duration: '10': a unit is missing (write e.g. '10s')
                  timeouts: {connect: 10}
                                      ^
                m.yaml:8:15: error: 'base_url' contains user information ('user@' or 'user:password@'); put credentials in a header with ${VAR}
                    base_url: https://<redacted>@cdn.example.com/
                              ^
                m.yaml:9:5: error: unknown key 'checksumm' in a resource (did you mean 'checksum'?)
                    checksumm: sha256
                    ^
                m.yaml:11:15: error: slice path '/etc/passwd' is absolute; destinations are relative to the output root
                      - path: /etc/passwd
                              ^
                m.yaml:12:15: error: 'size' is not a valid size: '-1': sizes cannot be negative
                        size: -1
                              ^
                m.yaml:14:80: error: sha256 digest contains 'z', which is not a hex digit
                        sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a0z
                                                                                               ^

                """)
    }

    @Test func headersAreCheckedAndSecretsNeverEchoed() throws {
        let text = try diagnose(
            """
            version: 1
            defaults:
              headers:
                Range: bytes=0-
                "Bad Name": x
                X-Inject: "a\\r\\nX-Evil: 1"
                X-Token: "${NOT_SET_ANYWHERE}"
                x-trace: one
                X-Trace: two
            resources:
              - {id: a, base_url: "https://h/", slices: [{path: p}]}
            """)
        #expect(
            text == """
                m.yaml:4:5: error: header 'Range' is set by jobrun itself and cannot be given in a manifest
                    Range: bytes=0-
                    ^
                m.yaml:5:5: error: header name 'Bad Name' is not a valid HTTP token
                    "Bad Name": x
                    ^
                m.yaml:6:15: error: the value of header 'X-Inject' contains a carriage return (CR); that would inject extra headers
                    X-Inject: "a\\r\\nX-Evil: 1"
                              ^
                m.yaml:7:15: error: environment variable 'NOT_SET_ANYWHERE' is not set (used in header 'X-Token')
                    X-Token: "${NOT_SET_ANYWHERE}"
                              ^
                m.yaml:9:5: error: header 'X-Trace' is given twice (header names are case-insensitive)
                    X-Trace: two
                    ^
                m.yaml:8:5: note: first given here
                    x-trace: one
                    ^

                """)
    }

    @Test func emptyAndMissingPieces() throws {
        #expect(try diagnose("") == "m.yaml:1:1: error: the manifest is empty; it needs 'version: 1' and a list of 'resources'\n\n^\n")
        #expect(
            try diagnose("version: 1\nresources: []\n") == """
                m.yaml:2:12: error: 'resources' is empty; a manifest must declare at least one resource
                resources: []
                           ^

                """)
        #expect(
            try diagnose("version: 2\nresources:\n  - id: a\n    slices_from: x.sums\n")
                == """
                m.yaml:1:10: error: unsupported manifest version 2; this jobrun reads version 1
                version: 2
                         ^
                m.yaml:4:18: error: cannot read 'slices_from' file 'x.sums': No such file or directory
                    slices_from: x.sums
                                 ^

                """.replacingOccurrences(of: "'x.sums'", with: "'x.sums'"))
    }

    @Test func urlsMustBeHTTP() throws {
        let yaml = """
            version: 1
            resources:
              - id: a
                base_url: file:///srv/mirror/
                slices: [{path: x}, {path: y, url: "ftp://h/y"}]
            """
        let text = try diagnose(yaml)
        #expect(text.contains("m.yaml:4:15: error: 'base_url' is a file URL; file URLs are read only with --allow-file-urls"))
        #expect(text.contains("m.yaml:5:40: error: 'url' uses the scheme 'ftp'; only http and https are allowed"))
        let allowed = try loadManifests(["m.yaml": yaml.replacingOccurrences(of: ", {path: y, url: \"ftp://h/y\"}", with: "")], allowFileURLs: true)
        #expect(allowed.rendered == "")
        #expect(allowed.manifest?.resources.first?.baseURL == "file:///srv/mirror/")
    }

    @Test func destinationsNormaliseAndRefuseEscapes() throws {
        let m = try #require(
            try loadManifests([
                "m.yaml": """
                version: 1
                resources:
                  - {id: a, base_url: "https://h/", dest: "x/./y/../z/", slices: [{path: "p//q/./r.ts"}, {path: "d/../e.ts"}]}
                  - {id: b, base_url: "https://h/", dest: ".", slices: [{path: top.ts}]}
                """
            ]).manifest)
        #expect(m.resources[0].dest == "x/z")
        #expect(m.resources[0].slices.map(\.path) == ["p/q/r.ts", "e.ts"])
        #expect(m.resources[1].dest == "")
        #expect(m.resources[1].relativePath(of: m.resources[1].slices[0]) == "top.ts")

        let text = try diagnose(
            """
            version: 1
            resources:
              - {id: a, base_url: "https://h/", dest: "~/x", slices: [{path: "a/../../b"}, {path: "c\\\\d"}, {path: "e/"}]}
            """)
        #expect(text.contains("error: 'dest' '~/x' starts with '~'; jobrun does not expand home directories"))
        #expect(text.contains("error: slice path 'a/../../b' escapes the output root through '..'"))
        #expect(text.contains("error: slice path 'c\\d' contains a backslash; use '/' to separate folders"))
        #expect(text.contains("error: slice path 'e/' ends with '/'; a slice is a file"))
    }

    @Test func collisionsNameBothSlices() throws {
        let text = try diagnose(
            """
            version: 1
            resources:
              - id: a
                base_url: https://h/
                dest: shared
                slices:
                  - path: x.ts
                  - path: dir
              - id: b
                base_url: https://h/
                dest: shared
                slices:
                  - path: x.ts
                  - path: dir/inner.ts
            """)
        #expect(
            text == """
                m.yaml:8:9: error: slice file 'mirror/shared/dir' is also a folder that another slice writes into
                      - path: dir
                        ^
                m.yaml:14:9: note: this slice needs 'mirror/shared/dir' to be a folder
                      - path: dir/inner.ts
                        ^
                m.yaml:13:9: error: two slices write the same file 'mirror/shared/x.ts'
                      - path: x.ts
                        ^
                m.yaml:7:9: note: the other slice is here
                      - path: x.ts
                        ^

                """)
    }

    /// The mirror state's folder at the top of the output root is jobrun's: no slice writes there.
    @Test func theMirrorStateFolderIsReserved() throws {
        let text = try diagnose(
            """
            version: 1
            resources:
              - id: a
                base_url: https://h/
                dest: .jobrun/more
                slices:
                  - path: x.ts
              - id: b
                base_url: https://h/
                dest: ""
                slices:
                  - path: .jobrun/state.sqlite
                  - path: .jobrunner/ok.ts
                  - path: sub/.jobrun/ok.ts
            """)
        #expect(
            text == """
                m.yaml:3:9: error: the destination '.jobrun/more' is inside 'mirror/.jobrun', the folder jobrun keeps for the mirror state
                  - id: a
                        ^
                m.yaml:12:9: error: slice path '.jobrun/state.sqlite' is inside 'mirror/.jobrun', the folder jobrun keeps for the mirror state
                      - path: .jobrun/state.sqlite
                        ^

                """)
    }

    /// A root inside another: neither may write into the other's state folder.
    @Test func noRootWritesIntoAnotherRootsStateFolder() throws {
        let outer = """
            version: 1
            defaults: {output: mirror}
            resources:
              - id: outer
                base_url: https://h/
                dest: ""
                slices:
                  - path: inner/.jobrun/state.sqlite
                  - path: inner/ok.ts

            """
        let inner = """
            version: 1
            defaults: {output: mirror/inner}
            resources:
              - id: inner
                base_url: https://h/
                dest: ""
                slices:
                  - path: a.ts

            """
        let loaded = try loadManifests(["outer.yaml": outer, "inner.yaml": inner], load: ["outer.yaml", "inner.yaml"])
        #expect(
            loaded.rendered == """
                outer.yaml:8:9: error: slice path 'inner/.jobrun/state.sqlite' is inside 'mirror/inner/.jobrun', the folder jobrun keeps for the mirror state
                      - path: inner/.jobrun/state.sqlite
                        ^

                """)
    }

    @Test func dependenciesUnknownSelfAndCycles() throws {
        let text = try diagnose(
            """
            version: 1
            resources:
              - {id: a, base_url: "https://h/", depends_on: [b], slices: [{path: a}]}
              - {id: b, base_url: "https://h/", depends_on: [c], slices: [{path: b}]}
              - {id: c, base_url: "https://h/", depends_on: [a, c, lesson], slices: [{path: c}]}
              - {id: lessons, base_url: "https://h/", slices: [{path: l}]}
              - {id: lessons, base_url: "https://h/", dest: l2, slices: [{path: l}]}
            """)
        #expect(
            text == """
                m.yaml:3:50: error: dependency cycle: a -> b -> c -> a
                  - {id: a, base_url: "https://h/", depends_on: [b], slices: [{path: a}]}
                                                                 ^
                m.yaml:5:53: error: resource 'c' depends on itself
                  - {id: c, base_url: "https://h/", depends_on: [a, c, lesson], slices: [{path: c}]}
                                                                    ^
                m.yaml:5:56: error: resource 'c' depends on unknown resource 'lesson' (did you mean 'lessons'?)
                  - {id: c, base_url: "https://h/", depends_on: [a, c, lesson], slices: [{path: c}]}
                                                                       ^
                m.yaml:7:10: error: duplicate resource id 'lessons'
                  - {id: lessons, base_url: "https://h/", dest: l2, slices: [{path: l}]}
                         ^
                m.yaml:6:10: note: 'lessons' first declared here
                  - {id: lessons, base_url: "https://h/", slices: [{path: l}]}
                         ^

                """)
    }

    @Test func duplicateIDsAcrossFilesAndFolderLoading() throws {
        let one = "version: 1\nresources:\n  - {id: a, base_url: \"https://h/\", slices: [{path: x}]}\n"
        let two = "version: 1\ndefaults: {output: other}\nresources:\n  - {id: a, base_url: \"https://h/\", slices: [{path: y}]}\n"
        let loaded = try loadManifests(["1.yaml": one, "2.yaml": two])
        #expect(
            loaded.rendered == """
                2.yaml:4:10: error: duplicate resource id 'a'
                  - {id: a, base_url: "https://h/", slices: [{path: y}]}
                         ^
                1.yaml:3:10: note: 'a' first declared here
                  - {id: a, base_url: "https://h/", slices: [{path: x}]}
                         ^

                """)
    }

    @Test func checksumListProblemsPointIntoTheList() throws {
        let text = try diagnose(
            """
            version: 1
            resources:
              - id: a
                base_url: https://h/
                checksum: md5
                slices_from: a.sums
            """,
            extra: [
                "a.sums":
                    "0cc175b9c0f1b6a831c399e269772661  ok.ts\n2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824  wrong-length.ts\nnot-a-line\n0cc175b9c0f1b6a831c399e26977266Z  bad-hex.ts\n"
            ])
        #expect(
            text == """
                a.sums:2:1: error: md5 digest has 64 hex digits; it needs 32 (the resource's 'checksum' is md5)
                2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824  wrong-length.ts
                ^
                a.sums:3:1: error: expected '<digest>  <path>' in a checksum list line
                not-a-line
                ^
                a.sums:4:32: error: md5 digest contains a character that is not a hex digit
                0cc175b9c0f1b6a831c399e26977266Z  bad-hex.ts
                                               ^

                """)
    }

    @Test func numbersNeverTrap() throws {
        let text = try diagnose(
            """
            version: 99999999999999999999999
            defaults:
              concurrency: {total: "16", per_host: 1.5}
              max_size: 9000000PiB
              retries: {backoff: {multiplier: .inf, initial: 5m, max: 1s}}
            resources:
              - {id: a, base_url: "https://h/", slices: [{path: x, size: 1.3B}]}
            """)
        #expect(text.contains("m.yaml:1:10: error: 'version' is out of range: 99999999999999999999999"))
        #expect(text.contains("m.yaml:3:24: error: 'total' must be an integer, found the quoted string '16'"))
        #expect(text.contains("m.yaml:3:40: error: 'per_host' must be an integer, found '1.5'"))
        #expect(text.contains("m.yaml:4:13: error: 'max_size' is not a valid size: '9000000PiB': it is too large"))
        #expect(text.contains("m.yaml:5:35: error: 'multiplier' must be a number, found '.inf'"))
        #expect(text.contains("m.yaml:5:50: error: 'initial' backoff (5m) is longer than 'max' (1s)"))
        #expect(text.contains("m.yaml:7:62: error: 'size' is not a valid size: '1.3B': it is not a whole number of bytes"))
    }

    @Test func unreadableInputsAreNotDiagnostics() throws {
        let loaded = try loadManifests(["m.yaml": "version: 1\n"], load: ["m.yaml", "missing.yaml"])
        #expect(loaded.rendered.contains("unreadable: missing.yaml: No such file or directory"))
        #expect(loaded.manifest == nil)
    }
}

@Suite struct ValidatorAlgorithmTests {
    @Test func longChainsNeitherRecurseNorHang() {
        let n = 10_000
        let here = JobrunCore.SourceLocation(file: "m.yaml", line: 1, column: 1)
        var edges: [[(target: Int, location: JobrunCore.SourceLocation)]] = Array(repeating: [], count: n)
        for i in 1..<n { edges[i].append((i - 1, here)) }
        #expect(ManifestValidator.cycles(edges: edges).isEmpty)
        edges[0].append((n - 1, here))
        let cycles = ManifestValidator.cycles(edges: edges)
        #expect(cycles.count == 1)
        #expect(cycles.first?.count == n)
        #expect(cycles.first?.first?.from == 0)
    }

    @Test func dependencyOrderIsByDependenciesThenID() throws {
        let m = try #require(
            try loadManifests([
                "m.yaml": """
                version: 1
                resources:
                  - {id: z, base_url: "https://h/", depends_on: [m], slices: [{path: z}]}
                  - {id: m, base_url: "https://h/", slices: [{path: m}]}
                  - {id: b, base_url: "https://h/", depends_on: [z], slices: [{path: b}]}
                  - {id: a, base_url: "https://h/", slices: [{path: a}]}
                """
            ]).manifest)
        #expect(m.dependencyOrder.map { m.resources[$0].id } == ["a", "m", "z", "b"])
    }
}

@Suite struct PathRulesTests {
    @Test func normalisation() throws {
        #expect(PathRules.normalize("a/b", allowEmpty: false, allowTrailingSlash: false) == .success("a/b"))
        #expect(PathRules.normalize("./a//b/.", allowEmpty: false, allowTrailingSlash: false) == .success("a/b"))
        #expect(PathRules.normalize("a/../b", allowEmpty: false, allowTrailingSlash: false) == .success("b"))
        #expect(PathRules.normalize("..", allowEmpty: true, allowTrailingSlash: true) == .failure(.escapesRoot))
        #expect(PathRules.normalize(".", allowEmpty: true, allowTrailingSlash: true) == .success(""))
        #expect(PathRules.normalize(".", allowEmpty: false, allowTrailingSlash: false) == .failure(.empty))
        #expect(PathRules.normalize("a/~b", allowEmpty: false, allowTrailingSlash: false) == .failure(.tilde))
        #expect(PathRules.normalize("a/b~", allowEmpty: false, allowTrailingSlash: false) == .success("a/b~"))
        #expect(PathRules.normalize("a/.hidden/..x/x.ts", allowEmpty: false, allowTrailingSlash: false) == .success("a/.hidden/..x/x.ts"))
        #expect(PathRules.normalize("a/../b/...", allowEmpty: false, allowTrailingSlash: false) == .success("b/..."))
        #expect(PathRules.normalize("a/./~b", allowEmpty: false, allowTrailingSlash: false) == .failure(.tilde))
        #expect(
            PathRules.normalize("a\u{0}b", allowEmpty: false, allowTrailingSlash: false)
                == .failure(.character(try #require(DeceptiveCharacter("\u{0}")), offset: 1)))
        #expect(
            PathRules.normalize("a\u{7}b", allowEmpty: false, allowTrailingSlash: false)
                == .failure(.character(try #require(DeceptiveCharacter("\u{7}")), offset: 1)))
        #expect(PathRules.normalize(String(repeating: "x", count: 256), allowEmpty: false, allowTrailingSlash: false) == .failure(.componentTooLong))
        #expect(PathRules.normalize(String(repeating: "x/", count: 2100) + "y", allowEmpty: false, allowTrailingSlash: false) == .failure(.pathTooLong))
        #expect(PathRules.join("dir", "../x/./y") == "x/y")
        #expect(PathRules.join("/abs/dir", "./mirror") == "/abs/dir/mirror")
        #expect(PathRules.join("dir", "/abs") == "/abs")
    }

    @Test func suggestions() {
        #expect(Suggestions.closest(to: "checksumm", in: ["checksum", "slices"]) == "checksum")
        #expect(Suggestions.closest(to: "base_ulr", in: ["base_url", "dest"]) == "base_url")
        #expect(Suggestions.closest(to: "zzzz", in: ["checksum", "slices"]) == nil)
    }
}
