import JobrunCore

/// Decodes a manifest's `slices` lists while the parser reads them (``YAMLItemSink``): each
/// slice becomes a ``Slice`` as soon as its mapping is complete, and its nodes leave the tree.
/// The lists come back to ``ManifestDecoder`` by the number the document keeps for each.
final class SliceListReader: YAMLItemSink {
    /// One resource's `slices`, decoded.
    struct List: Sendable {
        var slices: [Slice]
        /// Some item had an error (reported): an empty list is not "no slices".
        var hasErrors: Bool
    }

    let listPath: [StaticString?] = ["resources", nil, "slices"]
    /// Decodes each item against the view it is given; holds the slices' diagnostics and secrets.
    private(set) var decoder: ManifestDecoder
    private(set) var lists: [List] = []
    private var current = List(slices: [], hasErrors: false)
    private let emptyDocument: YAMLDocument

    init(file: String, manifestDirectory: String, options: ManifestLoader.Options) {
        emptyDocument = YAMLDocument(file: file)
        decoder = ManifestDecoder(doc: emptyDocument, manifestDirectory: manifestDirectory, options: options)
    }

    func item(_ node: YAMLNode, in document: YAMLDocument) {
        decoder.doc = document
        if let slice = decoder.slice(node) { current.slices.append(slice) } else { current.hasErrors = true }
        decoder.doc = emptyDocument
    }

    func endList() -> UInt32 {
        // Grown by doubling: a list kept for the whole run does not keep the spare half too.
        if current.slices.capacity - current.slices.count > current.slices.count / 8 {
            let slices = current.slices
            current.slices = [Slice](unsafeUninitializedCapacity: slices.count) { buffer, initialized in
                initialized = buffer.initialize(fromContentsOf: slices)
            }
        }
        lists.append(current)
        current = List(slices: [], hasErrors: false)
        return UInt32(truncatingIfNeeded: lists.count - 1)
    }
}
