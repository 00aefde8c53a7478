extension MirrorStates {
    /// Every file `root`'s store records (``StateStore/recordedFiles()``); `nil` when the root has
    /// no store in use: nothing there is known to be jobrun's.
    public func recordedFiles(root: String) -> [StateStore.RecordedFile]? {
        use(root) { store throws(StateError) in try store.recordedFiles() }
    }
}
