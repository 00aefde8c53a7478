public import JobrunCore

/// A handle to one node of a ``YAMLDocument``.
public struct YAMLNode: Hashable, Sendable {
    public let index: Int32
    public init(index: Int32) { self.index = index }
}

/// A parsed YAML document: a tree of scalars, mappings and sequences, every node with its location.
///
/// Stored as flat arrays (an arena) rather than a tree of objects: a manifest of a million slices
/// has ten million nodes, and one allocation per node would dominate `jobrun plan`.
public struct YAMLDocument: Sendable, Equatable {
    public enum Kind: UInt8, Sendable { case scalar, mapping, sequence }
    public enum ScalarStyle: UInt8, Sendable { case plain, singleQuoted, doubleQuoted, literal, folded }

    struct Record: Sendable, Equatable {
        var kind: Kind
        var style: ScalarStyle
        /// A sequence whose items a ``YAMLItemSink`` took: `start` is the number it gave the list.
        /// (Beside the two bytes above, where it takes no room.)
        var isCollapsed = false
        var line: UInt32
        var column: UInt32
        /// Scalar: byte offset into `text`. Collection: index into `children`.
        var start: UInt32
        /// Scalar: byte count. Mapping: number of pairs. Sequence: number of items.
        var count: UInt32
    }

    /// The file as the user named it, used in every location.
    public let file: String
    var records: [Record] = []
    /// Scalar bytes, back to back.
    var text: [UInt8] = []
    /// Child node indices of collections; a mapping's are key, value, key, value, ….
    var children: [Int32] = []
    /// The document's root, `nil` for an empty document.
    public internal(set) var root: YAMLNode?

    init(file: String) { self.file = file }

    public func kind(_ node: YAMLNode) -> Kind { records[Int(node.index)].kind }

    public func style(_ node: YAMLNode) -> ScalarStyle { records[Int(node.index)].style }

    public func location(_ node: YAMLNode) -> SourceLocation {
        let r = records[Int(node.index)]
        return SourceLocation(file: file, line: Int(r.line), column: Int(r.column))
    }

    /// The scalar's text (empty for collections).
    public func scalar(_ node: YAMLNode) -> String {
        let r = records[Int(node.index)]
        guard r.kind == .scalar else { return "" }
        let start = Int(r.start)
        return text.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<start + Int(r.count)]), as: UTF8.self)
        }
    }

    /// Runs `body` over a scalar's UTF-8 bytes without making a `String` (empty for collections).
    public func withScalarUTF8<R>(_ node: YAMLNode, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let r = records[Int(node.index)]
        let count = r.kind == .scalar ? Int(r.count) : 0
        return text.withUnsafeBufferPointer { buffer in
            body(UnsafeBufferPointer(rebasing: buffer[Int(r.start)..<Int(r.start) + count]))
        }
    }

    /// True for a scalar whose bytes equal `literal`, without creating a `String`.
    public func scalar(_ node: YAMLNode, equals literal: StaticString) -> Bool {
        let r = records[Int(node.index)]
        guard r.kind == .scalar, Int(r.count) == literal.utf8CodeUnitCount else { return false }
        let start = Int(r.start)
        return text.withUnsafeBufferPointer { buffer in
            let lit = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
            for k in 0..<lit.count where buffer[start + k] != lit[k] { return false }
            return true
        }
    }

    /// True for the YAML core schema's null: an empty plain scalar, `~`, `null`, `Null`, `NULL`.
    public func isNull(_ node: YAMLNode) -> Bool {
        let r = records[Int(node.index)]
        guard r.kind == .scalar, r.style == .plain else { return false }
        if r.count == 0 { return true }
        // Called for every scalar read: compare bytes, never build a String.
        if r.count == 1 { return scalar(node, equals: "~") }
        guard r.count == 4 else { return false }
        return scalar(node, equals: "null") || scalar(node, equals: "Null") || scalar(node, equals: "NULL")
    }

    /// The number a ``YAMLItemSink`` gave the sequence whose items it took, `nil` for any other node.
    func collapsedList(_ node: YAMLNode) -> Int? {
        let r = records[Int(node.index)]
        return r.isCollapsed ? Int(r.start) : nil
    }

    /// Number of pairs of a mapping or items of a sequence; 0 for scalars.
    public func count(_ node: YAMLNode) -> Int {
        let r = records[Int(node.index)]
        return r.kind == .scalar ? 0 : Int(r.count)
    }

    /// The key/value pairs of a mapping, in document order (empty for other kinds).
    public func pairs(_ node: YAMLNode) -> Pairs {
        let r = records[Int(node.index)]
        guard r.kind == .mapping else { return Pairs(children: children, start: 0, count: 0) }
        return Pairs(children: children, start: Int(r.start), count: Int(r.count))
    }

    /// The items of a sequence, in document order (empty for other kinds, and for a sequence
    /// whose items were collapsed).
    public func items(_ node: YAMLNode) -> Items {
        let r = records[Int(node.index)]
        guard r.kind == .sequence, !r.isCollapsed else { return Items(children: children, start: 0, count: 0) }
        return Items(children: children, start: Int(r.start), count: Int(r.count))
    }

    public struct Pairs: RandomAccessCollection, Sendable {
        let children: [Int32]
        let start: Int
        public let count: Int
        public var startIndex: Int { 0 }
        public var endIndex: Int { count }
        public subscript(position: Int) -> (key: YAMLNode, value: YAMLNode) {
            (YAMLNode(index: children[start + 2 * position]), YAMLNode(index: children[start + 2 * position + 1]))
        }
    }

    public struct Items: RandomAccessCollection, Sendable {
        let children: [Int32]
        let start: Int
        public let count: Int
        public var startIndex: Int { 0 }
        public var endIndex: Int { count }
        public subscript(position: Int) -> YAMLNode { YAMLNode(index: children[start + position]) }
    }

    /// The value for `key` in a mapping (first match), or `nil`.
    public func value(forKey key: StaticString, in mapping: YAMLNode) -> YAMLNode? {
        for pair in pairs(mapping) where scalar(pair.key, equals: key) { return pair.value }
        return nil
    }

    /// A human name for a node's kind, for messages: "a mapping", "a list", "a string".
    public func kindDescription(_ node: YAMLNode) -> String {
        switch kind(node) {
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .scalar: isNull(node) ? "null" : "a scalar"
        }
    }
}
