import JobrunCore

/// Builds a ``YAMLDocument``'s arena from parse events, checking what only the tree can tell:
/// nesting depth, mapping keys that are collections, merge keys and duplicate keys.
///
/// Nodes are recorded in pre-order. Each open collection collects its children's indices at the
/// end of `pending`; when it closes they are moved to `children` in one block, so every
/// collection's children are contiguous without a per-collection allocation.
struct YAMLTreeBuilder {
    private struct Frame {
        var record: Int32
        var pendingStart: Int
        var isMapping: Bool
        /// A list whose items go to the ``itemSink``, and how many went.
        var collapses = false
        var collapsedItems: UInt32 = 0
    }

    /// Mappings with more pairs than this are checked for duplicates with a hash table; smaller
    /// ones (almost all of them: a slice has three keys) by comparing every pair.
    static let linearDuplicateScanLimit = 16

    let file: String
    let maximumDepth: Int
    private var records: [YAMLDocument.Record] = []
    private var text: [UInt8] = []
    private var children: [Int32] = []
    private var pending: [Int32] = []
    private var frames: [Frame] = []
    /// Stand-ins for aliases: they keep a mapping's pairs aligned but are no real keys.
    private var placeholders: Set<Int32> = []
    private var root: Int32?
    private(set) var diagnostics: [Diagnostic] = []
    /// Takes the items of the lists at its ``YAMLItemSink/listPath`` as they complete.
    let itemSink: (any YAMLItemSink)?
    /// Where the arena ended when the item being read began (its nodes are dropped after it).
    private var itemMark = (records: 0, text: 0, children: 0)

    init(file: String, maximumDepth: Int, expectedBytes: Int, itemSink: (any YAMLItemSink)? = nil) {
        self.file = file
        self.maximumDepth = maximumDepth
        self.itemSink = itemSink
        // Reserving address space is cheap (untouched pages cost nothing) and saves the copies of
        // repeated doubling on a 100 MB manifest. Scalars never outgrow the source by much; a node
        // takes at least a dozen bytes of source in real manifests.
        // With a sink, the lists that make a manifest large never stay in the tree.
        if itemSink == nil {
            text.reserveCapacity(expectedBytes)
            records.reserveCapacity(expectedBytes / 12 + 16)
            children.reserveCapacity(expectedBytes / 12 + 16)
        }
        pending.reserveCapacity(1024)
    }

    /// True once a root node was recorded.
    var hasRoot: Bool { root != nil }

    /// The finished document. Only meaningful when the event stream was complete.
    func document() -> YAMLDocument {
        var document = YAMLDocument(file: file)
        document.records = records
        document.text = text
        document.children = children
        document.root = root.map { YAMLNode(index: $0) }
        return document
    }

    private func location(line: UInt32, column: UInt32) -> SourceLocation {
        SourceLocation(file: file, line: Int(line), column: Int(column))
    }

    /// Whether the next node attached to the innermost collection is a mapping key.
    private var nextIsKey: Bool {
        guard let frame = frames.last, frame.isMapping else { return false }
        return (pending.count - frame.pendingStart) & 1 == 0
    }

    private mutating func attach(_ index: Int32) {
        if frames.isEmpty {
            root = index
        } else {
            pending.append(index)
        }
    }

    mutating func addScalar(_ bytes: UnsafeBufferPointer<UInt8>, style: YAMLDocument.ScalarStyle, line: UInt32, column: UInt32) {
        if style == .plain, bytes.count == 2, bytes[0] == UInt8(ascii: "<"), bytes[1] == UInt8(ascii: "<"), nextIsKey {
            diagnostics.append(
                .error(
                    "merge keys ('<<') are not allowed in manifests; write the keys out",
                    at: location(line: line, column: column)))
        }
        let index = Int32(truncatingIfNeeded: records.count)
        let isItem = beginItem()
        // Offsets fit in 32 bits: the input is at most 256 MiB and scalars are at most 1.5 times
        // their source (the `\L` escape).
        records.append(
            YAMLDocument.Record(
                kind: .scalar, style: style, line: line, column: column,
                start: UInt32(truncatingIfNeeded: text.count), count: UInt32(truncatingIfNeeded: bytes.count)))
        text.append(contentsOf: bytes)
        attach(index)
        if isItem { finishItem(index) }
    }

    /// An alias: reported by the caller; recorded as an empty scalar so the tree stays well-formed.
    mutating func addPlaceholder(line: UInt32, column: UInt32) {
        let index = Int32(truncatingIfNeeded: records.count)
        let isItem = beginItem()
        placeholders.insert(index)
        records.append(
            YAMLDocument.Record(
                kind: .scalar, style: .plain, line: line, column: column, start: UInt32(truncatingIfNeeded: text.count), count: 0))
        attach(index)
        if isItem { finishItem(index) }
    }

    /// Opens a mapping or sequence. Returns false, recording nothing, when it would nest deeper
    /// than ``maximumDepth``: the caller reports that and stops.
    mutating func startCollection(_ kind: YAMLDocument.Kind, line: UInt32, column: UInt32) -> Bool {
        guard frames.count < maximumDepth else { return false }
        if nextIsKey {
            diagnostics.append(.error("mapping keys must be plain strings", at: location(line: line, column: column)))
        }
        let index = Int32(truncatingIfNeeded: records.count)
        _ = beginItem()
        let collapses = kind == .sequence && isAtListPath
        records.append(YAMLDocument.Record(kind: kind, style: .plain, line: line, column: column, start: 0, count: 0))
        attach(index)
        frames.append(Frame(record: index, pendingStart: pending.count, isMapping: kind == .mapping, collapses: collapses))
        return true
    }

    mutating func endCollection() {
        guard let frame = frames.popLast() else { return }
        if frame.collapses, let itemSink {
            records[Int(frame.record)].start = itemSink.endList()
            records[Int(frame.record)].count = frame.collapsedItems
            records[Int(frame.record)].isCollapsed = true
        } else {
            let start = frame.pendingStart
            let childCount = pending.count - start
            if frame.isMapping && childCount >= 3 { checkDuplicateKeys(from: start) }
            records[Int(frame.record)].start = UInt32(truncatingIfNeeded: children.count)
            records[Int(frame.record)].count = UInt32(truncatingIfNeeded: frame.isMapping ? childCount / 2 : childCount)
            children.append(contentsOf: pending[start...])
            pending.removeLast(childCount)
        }
        if frames.last?.collapses == true { finishItem(frame.record) }
    }

    // MARK: Lists whose items go to the sink

    /// Whether a sequence opened now is at the sink's ``YAMLItemSink/listPath``. An open
    /// collection's key is the node its parent mapping collected just before the collection
    /// itself; the new sequence's is the last one collected.
    private var isAtListPath: Bool {
        guard let path = itemSink?.listPath, frames.count == path.count, !nextIsKey else { return false }
        for (depth, key) in path.enumerated() {
            guard frames[depth].isMapping == (key != nil) else { return false }
            guard let key else { continue }
            let keyIndex = depth + 1 < frames.count ? frames[depth + 1].pendingStart - 2 : pending.count - 1
            guard keyIndex >= frames[depth].pendingStart, isScalar(pending[keyIndex], equalTo: key) else { return false }
        }
        return true
    }

    private func isScalar(_ node: Int32, equalTo key: StaticString) -> Bool {
        let r = records[Int(node)]
        guard r.kind == .scalar, Int(r.count) == key.utf8CodeUnitCount else { return false }
        let start = Int(r.start)
        for k in 0..<key.utf8CodeUnitCount where text[start + k] != key.utf8Start[k] { return false }
        return true
    }

    /// Notes where the arena ends when a node begins as an item of a collapsing list.
    private mutating func beginItem() -> Bool {
        guard frames.last?.collapses == true else { return false }
        itemMark = (records.count, text.count, children.count)
        return true
    }

    /// Hands the complete item `index` to the sink, then drops its nodes.
    private mutating func finishItem(_ index: Int32) {
        guard let itemSink else { return }
        // The view is a temporary of this statement: released before the arrays below shrink,
        // which therefore do so in place.
        itemSink.item(YAMLNode(index: index), in: document())
        records.removeSubrange(itemMark.records...)
        text.removeSubrange(itemMark.text...)
        children.removeSubrange(itemMark.children...)
        pending.removeLast()
        frames[frames.count - 1].collapsedItems += 1
        if !placeholders.isEmpty {
            let kept = Int32(truncatingIfNeeded: itemMark.records)
            placeholders = placeholders.filter { $0 < kept }
        }
    }

    /// Closes every open collection, so that duplicate keys before a syntax error are reported too.
    mutating func closeOpenCollections() {
        while !frames.isEmpty { endCollection() }
    }

    /// Reports every key of the mapping whose children start at `pending[start]` that repeats an
    /// earlier key byte for byte, with a note at the first occurrence. The last key may lack its
    /// value when parsing stopped early.
    private mutating func checkDuplicateKeys(from start: Int) {
        let pairCount = (pending.count - start + 1) / 2
        var found: [(duplicate: Int32, first: Int32)] = []
        let placeholders = placeholders
        records.withUnsafeBufferPointer { records in
            text.withUnsafeBufferPointer { text in
                pending.withUnsafeBufferPointer { pending in
                    func keyBytes(_ pair: Int) -> UnsafeBufferPointer<UInt8>? {
                        let node = pending[start + 2 * pair]
                        let record = records[Int(node)]
                        guard record.kind == .scalar, placeholders.isEmpty || !placeholders.contains(node) else { return nil }
                        return UnsafeBufferPointer(rebasing: text[Int(record.start)..<Int(record.start) + Int(record.count)])
                    }
                    if pairCount <= Self.linearDuplicateScanLimit {
                        for later in 1..<pairCount {
                            guard let key = keyBytes(later) else { continue }
                            for earlier in 0..<later {
                                if let other = keyBytes(earlier), Self.equal(key, other) {
                                    found.append((pending[start + 2 * later], pending[start + 2 * earlier]))
                                    break
                                }
                            }
                        }
                    } else {
                        var firstByKey: [ByteKey: Int32] = [:]
                        firstByKey.reserveCapacity(pairCount)
                        for pair in 0..<pairCount {
                            guard let key = keyBytes(pair) else { continue }
                            let node = pending[start + 2 * pair]
                            if let first = firstByKey[ByteKey(bytes: key)] {
                                found.append((node, first))
                            } else {
                                firstByKey[ByteKey(bytes: key)] = node
                            }
                        }
                    }
                }
            }
        }
        for (duplicate, first) in found {
            let firstRecord = records[Int(first)]
            let duplicateRecord = records[Int(duplicate)]
            let key = text[Int(firstRecord.start)..<Int(firstRecord.start) + Int(firstRecord.count)]
            diagnostics.append(
                .error(
                    "duplicate key '\(Self.quotable(key))'",
                    at: location(line: duplicateRecord.line, column: duplicateRecord.column),
                    notes: [.note("first defined here", at: location(line: firstRecord.line, column: firstRecord.column))]))
        }
    }

    private static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for k in 0..<a.count where a[k] != b[k] { return false }
        return true
    }

    /// A key's bytes as a hash table key; only valid while the buffer it points into is.
    private struct ByteKey: Hashable {
        let bytes: UnsafeBufferPointer<UInt8>
        static func == (a: ByteKey, b: ByteKey) -> Bool { YAMLTreeBuilder.equal(a.bytes, b.bytes) }
        func hash(into hasher: inout Hasher) { hasher.combine(bytes: UnsafeRawBufferPointer(bytes)) }
    }

    /// A key for a message: control characters escaped, long keys cut.
    static func quotable(_ bytes: ArraySlice<UInt8>) -> String {
        var out = ""
        for (n, scalar) in String(decoding: bytes, as: UTF8.self).unicodeScalars.enumerated() {
            if n == 60 {
                out += "…"
                break
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
