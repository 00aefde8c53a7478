import Foundation
import JobrunTestSupport
import Testing

/// `/usr/bin/curl` as an independent HTTP client, for checking the test server itself.
struct Curl {
    static let executable = "/usr/bin/curl"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    /// What one curl invocation got (the last response, after any redirects it followed).
    struct Response: CustomStringConvertible {
        var exitStatus: Int32
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]
        var stderr: String

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        var description: String {
            "curl exit \(exitStatus), HTTP \(status), \(body.count) body bytes\n"
                + headers.map { "  \($0.name): \($0.value)" }.joined(separator: "\n") + "\n" + stderr
        }
    }

    /// Where bodies and headers go.
    let directory: TemporaryDirectory

    /// `curl -q -sS --noproxy '*' -o … -D … <options> <urls>`; ignores `~/.curlrc` and proxies.
    func callAsFunction(_ urls: String..., options: [String] = []) async throws -> Response {
        let name = UUID().uuidString
        let bodyPath = directory.path("\(name).body")
        let headerPath = directory.path("\(name).headers")
        var arguments = ["-q", "-sS", "--noproxy", "*", "-D", headerPath, "-w", "%{http_code}"] + options
        for url in urls { arguments += ["-o", bodyPath, url] }
        let result = try await BinaryRunner(executable: Self.executable, defaultTimeout: .seconds(30)).run(arguments)
        let headerText = directory.contents(of: "\(name).headers") ?? ""
        let body = FileManager.default.contents(atPath: bodyPath).map { [UInt8]($0) } ?? []
        // -D holds one block per response (redirects, several URLs); keep the last.
        let blocks = headerText.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
        var headers: [(name: String, value: String)] = []
        for line in (blocks.last ?? "").components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let status = Int(result.stdout.suffix(3)) ?? 0
        return Response(exitStatus: result.status, status: status, headers: headers, body: body, stderr: result.stderr)
    }
}
