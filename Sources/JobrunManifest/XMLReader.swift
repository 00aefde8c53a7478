import JobrunCore
import Synchronization

/// libxml2's streaming reader (`xmlTextReader`), loaded with `dlopen` the first time a Metalink
/// is read: Debian's libxml2 pulls in ICU, which linking would load at every start of jobrun. The
/// reader never reaches the network (`XML_PARSE_NONET`), never loads a DTD and never substitutes
/// entities: an entity reference stays a node of its own, which the Metalink reader skips.
final class XMLReader {
    /// Node types of `xmlTextReaderNodeType`.
    enum NodeType: Int32 {
        case element = 1, text = 3, cdata = 4, documentType = 10, endElement = 15
    }

    private let api: XMLReaderAPI
    private let reader: OpaquePointer
    /// The first error libxml2 reported, with its line.
    private let errors: ErrorBox
    /// The document, which the reader reads from as it goes.
    private let buffer: UnsafeMutableBufferPointer<CChar>

    /// A reader of `bytes`, or why there is none (libxml2 not installed, or it refused to start).
    /// A document with a document type declaration is refused unread: an entity a DTD declares
    /// is expanded wherever an attribute holds it, as often as it is read.
    static func make(_ bytes: [UInt8]) -> Result<XMLReader, XMLReaderError> {
        if let doctype = bytes.firstRange(of: Array("<!DOCTYPE".utf8)) {
            let line = bytes[..<doctype.lowerBound].count { $0 == 0x0A } + 1
            return .failure(XMLReaderError("a document type declaration (<!DOCTYPE …>) is not read in a Metalink", line: line))
        }
        switch XMLReaderAPI.shared {
        case .failure(let error): return .failure(error)
        case .success(let api):
            // NONET, and NO_XXE where libxml2 knows it; no NOENT (entities stay unexpanded), no
            // DTDLOAD; errors come to the handler below, not to stderr.
            let options: Int32 = (1 << 11) | (1 << 23)
            // libxml2 reads the document as it goes: it gets a copy of its own, freed with the reader.
            let buffer = UnsafeMutableBufferPointer<CChar>.allocate(capacity: max(1, bytes.count))
            bytes.withUnsafeBufferPointer { source in
                source.withMemoryRebound(to: CChar.self) { _ = buffer.initialize(fromContentsOf: $0) }
            }
            guard let reader = api.forMemory(buffer.baseAddress, Int32(clamping: bytes.count), nil, nil, options) else {
                buffer.deallocate()
                return .failure(XMLReaderError("libxml2 could not start reading the document"))
            }
            let errors = ErrorBox()
            api.setErrorHandler(
                reader,
                { box, message, severity, locator in
                    // 2 and 4: errors; warnings (1 and 3) do not explain a failure.
                    guard let box, severity == 2 || severity == 4 else { return }
                    let errors = Unmanaged<ErrorBox>.fromOpaque(box).takeUnretainedValue()
                    guard errors.first == nil else { return }
                    let text = message.map { String(cString: $0).trimmingASCII([0x20, 0x09, 0x0A, 0x0D]) } ?? "malformed XML"
                    errors.first = (text, Int(XMLReaderAPI.shared.map { $0.locatorLine(locator) }.get(or: 0)))
                }, Unmanaged.passUnretained(errors).toOpaque())
            return .success(XMLReader(api: api, reader: reader, errors: errors, buffer: buffer))
        }
    }

    private init(api: XMLReaderAPI, reader: OpaquePointer, errors: ErrorBox, buffer: UnsafeMutableBufferPointer<CChar>) {
        self.api = api
        self.reader = reader
        self.errors = errors
        self.buffer = buffer
    }

    deinit {
        api.free(reader)
        buffer.deallocate()
    }

    /// Moves to the next node: `true`, `false` at the end, or the error that stopped it.
    func read() -> Result<Bool, XMLReaderError> {
        switch api.read(reader) {
        case 1: return .success(true)
        case 0: return .success(false)
        default:
            let (message, line) = errors.first ?? ("malformed XML", Int(api.line(reader)))
            return .failure(XMLReaderError(message, line: line))
        }
    }

    var nodeType: NodeType? { NodeType(rawValue: api.nodeType(reader)) }
    var localName: String { api.localName(reader).map { String(cString: $0) } ?? "" }
    var namespaceURI: String { api.namespaceURI(reader).map { String(cString: $0) } ?? "" }
    /// A text node's text.
    var value: String { api.value(reader).map { String(cString: $0) } ?? "" }
    var isEmptyElement: Bool { api.isEmptyElement(reader) == 1 }
    var depth: Int { Int(api.depth(reader)) }
    /// The line the current node starts on (the parser's own line, which runs ahead, without one).
    var line: Int {
        if let node = api.currentNode(reader) {
            let line = api.nodeLine(node)
            if line > 0 { return Int(line) }
        }
        return Int(api.line(reader))
    }

    /// The current element's attribute `name`, if it has one.
    func attribute(_ name: String) -> String? {
        guard api.moveToAttribute(reader, name) == 1 else { return nil }
        defer { _ = api.moveToElement(reader) }
        return api.value(reader).map { String(cString: $0) }
    }

    /// Written by libxml2's error callback, on the reading thread.
    private final class ErrorBox {
        var first: (String, Int)?
    }
}

/// Why an XML document could not be read.
struct XMLReaderError: Error, Sendable, Hashable {
    var message: String
    var line: Int?
    init(_ message: String, line: Int? = nil) {
        self.message = message
        self.line = line
    }
}

/// The entry points of libxml2's reader, looked up in the library `dlopen` loads (immutable once
/// made: C function pointers and the library handle).
final class XMLReaderAPI: @unchecked Sendable {
    typealias Reader = OpaquePointer
    typealias ErrorFunc = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int32, OpaquePointer?) -> Void
    typealias ForMemory = @convention(c) (UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32) -> Reader?
    typealias Step = @convention(c) (Reader) -> Int32
    typealias Text = @convention(c) (Reader) -> UnsafePointer<CChar>?
    typealias MoveTo = @convention(c) (Reader, UnsafePointer<CChar>?) -> Int32
    typealias SetErrorHandler = @convention(c) (Reader, ErrorFunc?, UnsafeMutableRawPointer?) -> Void
    typealias LocatorLine = @convention(c) (OpaquePointer?) -> Int32
    typealias Free = @convention(c) (Reader) -> Void
    typealias CurrentNode = @convention(c) (Reader) -> OpaquePointer?
    typealias NodeLine = @convention(c) (OpaquePointer) -> Int

    let forMemory: ForMemory
    let read: Step
    let nodeType: Step
    let localName: Text
    let namespaceURI: Text
    let value: Text
    let isEmptyElement: Step
    let depth: Step
    let line: Step
    let moveToAttribute: MoveTo
    let moveToElement: Step
    let setErrorHandler: SetErrorHandler
    let locatorLine: LocatorLine
    let free: Free
    let currentNode: CurrentNode
    let nodeLine: NodeLine

    #if canImport(Darwin)
    static let libraryNames = ["libxml2.2.dylib"]
    #else
    static let libraryNames = ["libxml2.so.2", "libxml2.so.16"]
    #endif

    /// libxml2, loaded once (by whichever thread asks first).
    static let shared: Result<XMLReaderAPI, XMLReaderError> = load()

    private init(_ symbol: (String) -> UnsafeMutableRawPointer?) throws(XMLReaderError) {
        func look<T>(_ name: String, as type: T.Type) throws(XMLReaderError) -> T {
            guard let pointer = symbol(name) else { throw XMLReaderError("libxml2 has no '\(name)'") }
            return unsafeBitCast(pointer, to: type)
        }
        forMemory = try look("xmlReaderForMemory", as: ForMemory.self)
        read = try look("xmlTextReaderRead", as: Step.self)
        nodeType = try look("xmlTextReaderNodeType", as: Step.self)
        localName = try look("xmlTextReaderConstLocalName", as: Text.self)
        namespaceURI = try look("xmlTextReaderConstNamespaceUri", as: Text.self)
        value = try look("xmlTextReaderConstValue", as: Text.self)
        isEmptyElement = try look("xmlTextReaderIsEmptyElement", as: Step.self)
        depth = try look("xmlTextReaderDepth", as: Step.self)
        line = try look("xmlTextReaderGetParserLineNumber", as: Step.self)
        moveToAttribute = try look("xmlTextReaderMoveToAttribute", as: MoveTo.self)
        moveToElement = try look("xmlTextReaderMoveToElement", as: Step.self)
        setErrorHandler = try look("xmlTextReaderSetErrorHandler", as: SetErrorHandler.self)
        locatorLine = try look("xmlTextReaderLocatorLineNumber", as: LocatorLine.self)
        free = try look("xmlFreeTextReader", as: Free.self)
        currentNode = try look("xmlTextReaderCurrentNode", as: CurrentNode.self)
        nodeLine = try look("xmlGetLineNo", as: NodeLine.self)
        let initParser = try look("xmlInitParser", as: (@convention(c) () -> Void).self)
        initParser()
    }

    private static func load() -> Result<XMLReaderAPI, XMLReaderError> {
        var reasons: [String] = []
        for name in libraryNames {
            guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                reasons.append("\(name): \(dlerror().map { String(cString: $0) } ?? "cannot be opened")")
                continue
            }
            do {
                return .success(try XMLReaderAPI { dlsym(handle, $0) })
            } catch {
                return .failure(error)
            }
        }
        return .failure(XMLReaderError("reading a Metalink needs libxml2 (Debian and Ubuntu: apt install libxml2): " + reasons.joined(separator: "; ")))
    }
}

extension Result {
    fileprivate func get(or fallback: Success) -> Success {
        if case .success(let value) = self { return value }
        return fallback
    }
}
