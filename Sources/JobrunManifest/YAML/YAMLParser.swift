public import JobrunCore
internal import CYAML

/// Parses one manifest file into a ``YAMLDocument`` with libyaml's event API, and reports every
/// problem it can find as a located ``Diagnostic``.
///
/// Manifests are data, so the parser accepts the JSON-like subset of YAML: no anchors, aliases,
/// tags or merge keys, exactly one document, at most ``maximumDepth`` levels of nesting, scalar
/// keys that are unique within their mapping, and indentation with spaces only.
public enum YAMLParser {
    /// Deepest collection nesting accepted; the root collection is level 1.
    public static let maximumDepth = 64
    /// Largest manifest accepted, in bytes.
    public static let maximumFileSize = 256 * 1024 * 1024

    /// Parses one manifest file. Returns the document (nil when there were errors or the input is empty/has no document) and every diagnostic found.
    public static func parse(file: String, bytes: [UInt8]) -> (document: YAMLDocument?, diagnostics: [Diagnostic]) {
        parse(file: file, bytes: bytes, sizeLimit: maximumFileSize)
    }

    /// ``parse(file:bytes:)`` with another size limit (so tests need not allocate 256 MiB), and a
    /// sink that takes the items of some lists as they are read (``YAMLItemSink``).
    /// `threadedSize`: inputs from this size on are parsed ahead on a thread (``YAMLEventSource``).
    static func parse(
        file: String, bytes: [UInt8], sizeLimit: Int = maximumFileSize, itemSink: (any YAMLItemSink)? = nil,
        threadedSize: Int = YAMLEventSource.threadedSize
    ) -> (document: YAMLDocument?, diagnostics: [Diagnostic]) {
        if bytes.count > sizeLimit {
            let limit = sizeLimit % (1 << 20) == 0 ? "\(sizeLimit >> 20) MiB" : "\(sizeLimit) bytes"
            let message = "manifest is \(bytes.count) bytes; the limit is \(limit)"
            return (nil, [.error(message, at: SourceLocation(file: file, line: 1, column: 1))])
        }
        return bytes.withUnsafeBufferPointer { buffer in
            var scan = YAMLPreScan(scanning: buffer)
            var builder = YAMLTreeBuilder(file: file, maximumDepth: maximumDepth, expectedBytes: buffer.count, itemSink: itemSink)
            var diagnostics = DiagnosticCollector()
            var hasDocument = false
            // A UTF-16 file would be decoded as such by libyaml and produce nonsense on top of the
            // pre-scan's clear message.
            if !scan.isUTF16, buffer.count > 0 {
                hasDocument = readEvents(from: buffer, into: &builder, scan: &scan, diagnostics: &diagnostics, threadedSize: threadedSize)
            }
            diagnostics.append(contentsOf: scan.diagnostics(file: file))
            diagnostics.append(contentsOf: builder.diagnostics)
            if diagnostics.hasErrors || !hasDocument || !builder.hasRoot { return (nil, diagnostics.sorted) }
            return (builder.document(), diagnostics.sorted)
        }
    }

    /// Feeds libyaml's events to `builder`. Returns true when exactly one document was read to the
    /// end of the stream.
    private static func readEvents(
        from buffer: UnsafeBufferPointer<UInt8>, into builder: inout YAMLTreeBuilder, scan: inout YAMLPreScan,
        diagnostics: inout DiagnosticCollector, threadedSize: Int
    ) -> Bool {
        let file = builder.file
        guard let base = buffer.baseAddress else { return false }
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) != 0 else {
            diagnostics.error("out of memory while starting to parse \(file)", at: nil)
            return false
        }
        defer { yaml_parser_delete(parser) }
        yaml_parser_set_input_string(parser, base, buffer.count)
        var source = YAMLEventSource(parser: parser, inputSize: buffer.count, threadedSize: threadedSize)
        defer { source.finish() }  // before the parser is deleted

        let marks = MarkTranslator(
            table: scan.hasForeignLineBreaks ? YAMLLineTable(bytes: buffer, byteOrderMarkLength: scan.byteOrderMarkLength) : nil)
        func location(_ position: (line: UInt32, column: UInt32)) -> SourceLocation {
            SourceLocation(file: file, line: Int(position.line), column: Int(position.column))
        }
        var documentCount = 0
        var isComplete = false
        events: while true {
            guard let event = source.next() else {
                if let error = syntaxError(of: parser, marks: marks, scan: scan, buffer: buffer, file: file) {
                    diagnostics.emit(error)
                }
                break
            }
            let start = marks.position(event.start)
            switch event.type {
            case YAML_SCALAR_EVENT:
                if event.hasAnchor { diagnostics.emit(anchorError(at: location(start))) }
                if event.hasTag { diagnostics.emit(tagError(at: location(start))) }
                if event.end.line > event.start.line, !scan.tabIndents.isEmpty {
                    scan.exemptTabIndents(afterLine: start.line, before: marks.position(event.end))
                }
                source.withValue(of: event) { value in
                    builder.addScalar(value, style: style(of: event.style), line: start.line, column: start.column)
                }
            case YAML_MAPPING_START_EVENT, YAML_SEQUENCE_START_EVENT:
                let isMapping = event.type == YAML_MAPPING_START_EVENT
                if event.hasAnchor { diagnostics.emit(anchorError(at: location(start))) }
                if event.hasTag { diagnostics.emit(tagError(at: location(start))) }
                guard builder.startCollection(isMapping ? .mapping : .sequence, line: start.line, column: start.column) else {
                    // Stop here rather than skip the rest: libyaml's scanner is quadratic in flow
                    // nesting depth (a 20,000-deep `{a: {a: …` takes seconds), so a hostile
                    // manifest must not get to feed it more.
                    diagnostics.error("nesting deeper than \(maximumDepth) levels", at: location(start))
                    break events
                }
            case YAML_MAPPING_END_EVENT, YAML_SEQUENCE_END_EVENT:
                builder.endCollection()
            case YAML_ALIAS_EVENT:
                diagnostics.error(
                    "YAML aliases are not allowed in manifests (manifests are data; aliases are how expansion bombs work)",
                    at: location(start))
                builder.addPlaceholder(line: start.line, column: start.column)
            case YAML_DOCUMENT_START_EVENT:
                documentCount += 1
                if documentCount > 1 {
                    diagnostics.error("a manifest must contain exactly one YAML document", at: location(start))
                    break events
                }
            case YAML_STREAM_END_EVENT:
                isComplete = true
                break events
            default:
                break
            }
        }
        if !isComplete { builder.closeOpenCollections() }
        return isComplete && documentCount == 1
    }

    private static func anchorError(at location: SourceLocation) -> Diagnostic {
        .error(
            "YAML anchors are not allowed in manifests (manifests are data; aliases are how expansion bombs work)",
            at: location)
    }

    private static func tagError(at location: SourceLocation) -> Diagnostic {
        .error("YAML tags are not allowed in manifests (manifests are data; write the value without '!…')", at: location)
    }

    private static func style(of style: yaml_scalar_style_t) -> YAMLDocument.ScalarStyle {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: .literal
        case YAML_FOLDED_SCALAR_STYLE: .folded
        default: .plain
        }
    }

    /// libyaml's error as a diagnostic, or nil when the pre-scan already reported its cause (an
    /// encoding problem, a tab-indented line) with a better message.
    private static func syntaxError(
        of parser: UnsafeMutablePointer<yaml_parser_t>, marks: MarkTranslator, scan: YAMLPreScan,
        buffer: UnsafeBufferPointer<UInt8>, file: String
    ) -> Diagnostic? {
        let problem = parser.pointee.problem.map { String(cString: $0) } ?? "invalid YAML"
        switch parser.pointee.error {
        case YAML_MEMORY_ERROR:
            return .error("out of memory while parsing \(file)", at: nil)
        case YAML_READER_ERROR:
            // The pre-scan checks everything libyaml's reader does; this is a safety net that
            // places the problem from its byte offset (the reader leaves its marks unset).
            if scan.hasEncodingProblems { return nil }
            let position = Self.position(ofByte: parser.pointee.problem_offset, in: buffer, byteOrderMarkLength: scan.byteOrderMarkLength)
            return .error(problem, at: SourceLocation(file: file, line: Int(position.line), column: Int(position.column)))
        default:
            let position = marks.position(parser.pointee.problem_mark)
            if let tab = scan.tabIndent(onLine: position.line) {
                switch tab.role {
                case .blankLine:
                    // libyaml rejects a tab on a blank line after a plain scalar; say what is wrong.
                    return .error(YAMLPreScan.tabMessage, at: SourceLocation(file: file, line: Int(tab.line), column: Int(tab.column)))
                case .indentation, .scalarContent:
                    return nil  // reported by the pre-scan; scalar content is never returned
                }
            }
            let location = SourceLocation(file: file, line: Int(position.line), column: Int(position.column))
            guard let context = parser.pointee.context.map({ String(cString: $0) }) else {
                return .error(problem, at: location)
            }
            let contextPosition = marks.position(parser.pointee.context_mark)
            var notes: [Diagnostic] = []
            if contextPosition != position {
                notes.append(
                    .note(
                        contextNote(context),
                        at: SourceLocation(file: file, line: Int(contextPosition.line), column: Int(contextPosition.column))))
            }
            return .error("\(problem) (\(context))", at: location, notes: notes)
        }
    }

    /// "while scanning a quoted scalar" → "the quoted scalar starts here".
    static func contextNote(_ context: String) -> String {
        for prefix in ["while scanning ", "while parsing "] where context.hasPrefix(prefix) {
            var what = Substring(context.dropFirst(prefix.count))
            for article in ["a ", "an "] where what.hasPrefix(article) {
                what = "the " + what.dropFirst(article.count)
                break
            }
            return "\(what) starts here"
        }
        return "\(context): started here"
    }

    /// 1-based line and column of a byte offset, counting lines and columns like the pre-scan.
    private static func position(ofByte offset: Int, in buffer: UnsafeBufferPointer<UInt8>, byteOrderMarkLength: Int) -> (line: UInt32, column: UInt32) {
        var line: UInt32 = 1
        var column: UInt32 = 1
        var k = byteOrderMarkLength
        while k < min(offset, buffer.count) {
            let c = buffer[k]
            if c == 0x0A {
                line += 1
                column = 1
            } else if c & 0xC0 != 0x80 {
                column += 1
            }
            k += 1
        }
        return (line, column)
    }
}

/// libyaml marks as 1-based line and column.
private struct MarkTranslator {
    /// Present only when the input has line breaks other than LF and CRLF, which libyaml counts
    /// and ``SourceFiles`` does not.
    let table: YAMLLineTable?

    func position(_ mark: yaml_mark_t) -> (line: UInt32, column: UInt32) {
        if let table { return table.position(ofCharacter: mark.index) }
        // libyaml counts columns in characters, which is what locations use.
        return (UInt32(truncatingIfNeeded: mark.line + 1), UInt32(truncatingIfNeeded: mark.column + 1))
    }
}
