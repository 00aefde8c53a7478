import Foundation
import JobrunTestSupport

/// A small manifest and a mirror on disk in every state verify and plan know: files that are ok,
/// one too short, one with the right size and the wrong content, one missing, a symbolic link
/// where a file belongs, and junk no manifest names.
///
/// Digests are of the contents written here (`printf 'hello\n' | sha256sum` and so on).
enum MirrorFixture {
    static let docs = """
        version: 1
        defaults:
          output: ./elsewhere
          headers: {User-Agent: "fixture/1"}
        resources:
          - id: docs
            base_url: https://files.example.com/docs/
            slices:
              - path: hello.txt
                size: 6
                sha256: 5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03
              - path: guide/intro.txt
                md5: 60a71506347a6d5f688c41d296e19c69
              - path: short.txt
                size: 100
              - path: corrupt.txt
                size: 8
                sha256: 844cd17a64dffb0b93be849979ecbc677a8e98a1b595a402ec08ce1b4f683166
              - path: missing.txt
                size: 8
                sha1: f9c24e2abb82063a3ba2c44efd2d3c797f28ac90
              - path: link.txt
                size: 6

        """

    static let media = """
        version: 1
        resources:
          - id: media
            base_url: https://media.example.com/v1/
            dest: media/v1
            depends_on: [docs]
            headers: {X-Trace: fixture}
            network: {cellular: true}
            slices:
              - path: cover.png
                url: https://img.example.com/cover.png?sig=abc123
                size: 12
                sha512: 0bdb6c58b52e901e0cf7f67fbfa85b05e05806bd14220b090b6f52bba461b3efe29610888f6759095c5af01b6ed07ce18965d41dcc85e364423fe14066aa8b74
              - path: clips/clip 1.ts
                size: 5
                sha224: 41740093a8a2120e23c720445e5c2f880ca9f6b83223ab37794541f3
                sha384: e4bab0ee397a1f5d2dec6f8a5769c416e95ca49751bb77bdb99072cbb57eb3cda51124b334260aba3bf797e33dede51b
          - id: archive
            base_url: https://media.example.com/archive/
            slices:
              - path: notes.txt

        """

    /// `manifests/docs.yaml`, `manifests/media.yaml` and the mirror in `mirror/` (pass `--output mirror`).
    static func make() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: "jobrun-fixture")
        try directory.write(file: "manifests/docs.yaml", contents: docs)
        try directory.write(file: "manifests/media.yaml", contents: media)
        try directory.write(file: "mirror/docs/hello.txt", contents: "hello\n")
        try directory.write(file: "mirror/docs/guide/intro.txt", contents: "intro\n")
        try directory.write(file: "mirror/docs/short.txt", contents: "short\n")
        try directory.write(file: "mirror/docs/corrupt.txt", contents: "corrupt\n")
        try FileManager.default.createSymbolicLink(atPath: directory.path("mirror/docs/link.txt"), withDestinationPath: "hello.txt")
        try directory.write(file: "mirror/docs/guide/draft.tmp", contents: "junk\n")
        try directory.write(file: "mirror/media/v1/cover.png", contents: "cover-image\n")
        try directory.write(file: "mirror/media/v1/clips/clip 1.ts", contents: "clip\n")
        try directory.write(file: "mirror/media/v1/clips/clip 2.ts.part", contents: "cl")
        try directory.write(file: "mirror/archive/notes.txt", contents: "any size, no digest\n")
        return directory
    }
}
