/// Takes the items of one kind of list out of a ``YAMLDocument`` as the parser completes them,
/// so that the tree never holds them all: a manifest's slices, a million of which would be ten
/// million nodes until decoded. The list stays in the tree as a sequence whose items were
/// collapsed (``YAMLDocument/collapsedList(_:)``).
protocol YAMLItemSink: AnyObject {
    /// Where the lists are: the keys of the mappings down to the list, `nil` for a sequence
    /// between them (`["resources", nil, "slices"]`: the root's `resources`, any of its items,
    /// that item's `slices`).
    var listPath: [StaticString?] { get }
    /// One item of the current list, complete; `document` is a view the sink must not keep,
    /// since the item's nodes are removed from the tree when this returns.
    func item(_ node: YAMLNode, in document: YAMLDocument)
    /// The current list has ended: the number the document keeps for it.
    func endList() -> UInt32
}
