import JobrunCore
import JobrunSystem

/// The URIs an HLS playlist (RFC 8216) names, with where each is written: a media playlist's
/// segments, keys (`#EXT-X-KEY`, `#EXT-X-SESSION-KEY`), initialization sections (`#EXT-X-MAP`),
/// partial segments and preload hints; a master playlist's variants (`#EXT-X-STREAM-INF`, then a
/// URI line), renditions (`#EXT-X-MEDIA`) and I-frame playlists. Pure: bytes in, references and
/// located diagnostics out.
struct HLSPlaylist {
    enum Kind: String, Sendable, Hashable {
        case segment, key, map, part, variant, rendition, iFrames = "i-frames"
    }

    struct Reference: Sendable, Hashable {
        var uri: String
        var kind: Kind
        var location: SourceLocation
    }

    var references: [Reference] = []

    /// Tags whose `URI` attribute names a file, and what it is.
    static let uriTags: [(tag: String, kind: Kind)] = [
        ("#EXT-X-KEY:", .key), ("#EXT-X-SESSION-KEY:", .key), ("#EXT-X-MAP:", .map), ("#EXT-X-PART:", .part),
        ("#EXT-X-PRELOAD-HINT:", .part), ("#EXT-X-MEDIA:", .rendition), ("#EXT-X-I-FRAME-STREAM-INF:", .iFrames),
    ]

    /// The playlist in `bytes`, read from `file` (which names the diagnostics' location); `nil`
    /// when it is not one (no `#EXTM3U` first).
    static func parse(_ bytes: [UInt8], file: String, diagnostics: inout DiagnosticCollector) -> HLSPlaylist? {
        var playlist = HLSPlaylist()
        var sawHeader = false
        var isPlaylist = true
        var variantPending = false
        FileReader.forEachLine(in: bytes) { lineNumber, whole in
            guard isPlaylist else { return }
            var line = whole
            while let last = line.last, last == 0x20 || last == 0x09 || last == 0x0D { line = line.dropLast() }
            guard !line.isEmpty else { return }
            guard let text = String(validating: line, as: UTF8.self) else {
                diagnostics.error("invalid UTF-8 in a playlist line", at: SourceLocation(file: file, line: lineNumber, column: 1))
                return
            }
            if !sawHeader {
                guard text == "#EXTM3U" else {
                    diagnostics.error("not an HLS playlist: its first line is not '#EXTM3U'", at: SourceLocation(file: file, line: lineNumber, column: 1))
                    isPlaylist = false
                    return
                }
                sawHeader = true
                return
            }
            if text.hasPrefix("#") {
                if text.hasPrefix("#EXT-X-STREAM-INF:") {
                    variantPending = true
                } else if let (tag, kind) = uriTags.first(where: { text.hasPrefix($0.tag) }) {
                    if let (uri, column) = uriAttribute(of: text, after: tag, line: lineNumber, file: file, diagnostics: &diagnostics) {
                        playlist.references.append(Reference(uri: uri, kind: kind, location: SourceLocation(file: file, line: lineNumber, column: column)))
                    }
                }
                return  // another tag, or a comment
            }
            playlist.references.append(
                Reference(uri: text, kind: variantPending ? .variant : .segment, location: SourceLocation(file: file, line: lineNumber, column: 1)))
            variantPending = false
        }
        guard isPlaylist else { return nil }
        guard sawHeader else {
            diagnostics.error("not an HLS playlist: it is empty", at: SourceLocation(file: file, line: 1, column: 1))
            return nil
        }
        return playlist
    }

    /// The `URI="…"` attribute of a tag's attribute list and the column of its first character;
    /// `nil` when the tag has none (a key with `METHOD=NONE`) or it is malformed (reported).
    static func uriAttribute(
        of text: String, after tag: String, line: Int, file: String, diagnostics: inout DiagnosticCollector
    ) -> (String, Int)? {
        let scalars = Array(text.unicodeScalars)
        var i = tag.unicodeScalars.count
        while i < scalars.count {
            // NAME=VALUE, where a quoted VALUE may hold commas.
            let nameStart = i
            while i < scalars.count, scalars[i] != "=", scalars[i] != "," { i += 1 }
            let name = String(String.UnicodeScalarView(scalars[nameStart..<i]))
            guard i < scalars.count, scalars[i] == "=" else {
                i += 1
                continue
            }
            i += 1
            if i < scalars.count, scalars[i] == "\"" {
                let valueStart = i + 1
                i = valueStart
                while i < scalars.count, scalars[i] != "\"" { i += 1 }
                guard i < scalars.count else {
                    diagnostics.error("a quoted attribute value without its closing '\"'", at: SourceLocation(file: file, line: line, column: valueStart))
                    return nil
                }
                if name == "URI" {
                    let value = String(String.UnicodeScalarView(scalars[valueStart..<i]))
                    guard !value.isEmpty else {
                        diagnostics.error("an empty URI", at: SourceLocation(file: file, line: line, column: valueStart + 1))
                        return nil
                    }
                    return (value, valueStart + 1)
                }
                i += 1
            } else {
                while i < scalars.count, scalars[i] != "," { i += 1 }
            }
            i += 1  // the comma
        }
        return nil
    }
}
