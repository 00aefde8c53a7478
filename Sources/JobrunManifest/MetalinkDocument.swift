import JobrunCore

/// A Metalink 4 document (RFC 5854, `.meta4`): each file's name, size, hashes and URLs, with the
/// lines they are on. Read with libxml2's streaming reader (``XMLReader``); elements of other
/// namespaces, `metaurl`s, `pieces` and anything unknown are skipped.
struct MetalinkDocument {
    static let namespace = "urn:ietf:params:xml:ns:metalink"
    /// Files a document may describe at most.
    static let maximumFiles = 1_000_000
    /// Characters an element's text may have at most (a URL, a hash, a size).
    static let maximumText = 65_536

    struct File {
        var name: String
        var line: Int
        var size: Int64?
        var hashes: [(type: String, hex: String, line: Int)] = []
        var urls: [(url: String, priority: Int, line: Int)] = []
    }

    var files: [File] = []

    /// The document in `bytes` (named `file` in diagnostics); `nil` when it is not one.
    static func parse(_ bytes: [UInt8], file: String, diagnostics: inout DiagnosticCollector) -> MetalinkDocument? {
        func at(_ line: Int) -> SourceLocation { SourceLocation(file: file, line: max(1, line), column: 1) }
        let reader: XMLReader
        switch XMLReader.make(bytes) {
        case .failure(let error):
            diagnostics.error(error.message, at: at(error.line ?? 1))
            return nil
        case .success(let r): reader = r
        }
        var document = MetalinkDocument()
        var sawRoot = false
        var current: File?
        var piecesDepth: Int?
        // The element whose text is being read: its name, attribute and line.
        var reading: (name: String, attribute: String?, line: Int)?
        var text = ""
        while true {
            switch reader.read() {
            case .failure(let error):
                diagnostics.error("the Metalink is not well-formed XML: \(error.message)", at: at(error.line ?? reader.line))
                return nil
            case .success(false):
                guard sawRoot else {
                    diagnostics.error("the document is empty; a Metalink 4 document has a 'metalink' element", at: at(1))
                    return nil
                }
                return document
            case .success(true): break
            }
            switch reader.nodeType {
            case .element?:
                let name = reader.localName
                let inNamespace = reader.namespaceURI == namespace
                if !sawRoot {
                    guard name == "metalink", inNamespace else {
                        let which =
                            reader.namespaceURI == "http://www.metalinker.org/"
                            ? "a Metalink 3 document; Metalink 4 (RFC 5854, .meta4) is read" : "not a Metalink 4 document ('metalink' in \(namespace))"
                        diagnostics.error("the document is \(which)", at: at(reader.line))
                        return nil
                    }
                    sawRoot = true
                    continue
                }
                guard inNamespace else { continue }
                if name == "pieces", current != nil, piecesDepth == nil, !reader.isEmptyElement {
                    piecesDepth = reader.depth
                } else if name == "file", reader.depth == 1 {
                    if let done = current { document.files.append(done) }
                    guard document.files.count < maximumFiles else {
                        diagnostics.error("the Metalink describes more than \(maximumFiles) files", at: at(reader.line))
                        return nil
                    }
                    guard let fileName = reader.attribute("name") else {
                        diagnostics.error("a 'file' without its 'name'", at: at(reader.line))
                        current = nil
                        continue
                    }
                    current = File(name: fileName, line: reader.line)
                    if reader.isEmptyElement {
                        document.files.append(File(name: fileName, line: reader.line))
                        current = nil
                    }
                } else if current != nil, piecesDepth == nil, ["size", "hash", "url"].contains(name), reader.depth == 2 {
                    let attribute = name == "hash" ? reader.attribute("type") : name == "url" ? reader.attribute("priority") : nil
                    reading = (name, attribute, reader.line)
                    text = ""
                    if reader.isEmptyElement {
                        finish(&current, reading, text: "", at: at, diagnostics: &diagnostics)
                        reading = nil
                    }
                }
            case .text?, .cdata?:
                if reading != nil {
                    text += reader.value
                    if text.utf8.count > maximumText {
                        diagnostics.error("an element's text is longer than \(maximumText) characters", at: at(reader.line))
                        return nil
                    }
                }
            case .endElement?:
                guard reader.namespaceURI == namespace else { continue }
                let name = reader.localName
                if let depth = piecesDepth {
                    if name == "pieces", reader.depth == depth { piecesDepth = nil }
                } else if let open = reading, open.name == name {
                    finish(&current, open, text: text, at: at, diagnostics: &diagnostics)
                    reading = nil
                } else if name == "file", reader.depth == 1, let done = current {
                    document.files.append(done)
                    current = nil
                }
            case .documentType?:
                diagnostics.error("a document type declaration is not read in a Metalink", at: at(reader.line))
                return nil
            case nil:
                continue
            }
        }
    }

    /// A `size`, `hash` or `url` element's text, into the file it belongs to.
    private static func finish(
        _ file: inout File?, _ element: (name: String, attribute: String?, line: Int)?, text: String, at: (Int) -> SourceLocation,
        diagnostics: inout DiagnosticCollector
    ) {
        guard let element, file != nil else { return }
        let value = text.trimmingASCII([0x20, 0x09, 0x0A, 0x0D])
        switch element.name {
        case "size":
            guard let size = Int64(value), size >= 0 else {
                diagnostics.error("'size' is not a size: '\(value)'", at: at(element.line))
                return
            }
            file?.size = size
        case "hash":
            file?.hashes.append((element.attribute ?? "", value, element.line))
        default:
            let priority = element.attribute.flatMap { Int($0.trimmingASCII()) } ?? 999_999
            file?.urls.append((value, priority, element.line))
        }
    }
}
