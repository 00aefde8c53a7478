import JobrunCore
internal import Synchronization

/// Turns the SIGBUS of a file mapping whose file shrank into a flag the reader checks.
///
/// Touching a mapped page past the end of a file that another process truncated raises SIGBUS,
/// whose default action kills the process: a `jobrun verify` of a mirror that rsync or a second
/// jobrun is rewriting would die without a report. Every `MappedFile` registers its address
/// range here. On SIGBUS inside a registered range, the handler maps anonymous zero pages over
/// the rest of that range (so the faulting read, and every later one, completes), marks the
/// range as shrunk and returns; the reader sees `MappedFile.hasShrunk` and reports the file
/// instead of its digest. A SIGBUS anywhere else restores the previous action (the default,
/// or the Swift runtime's backtracer) and returns, so the fault repeats and ends the process
/// as it would have.
///
/// The handler only loads atomics and calls `mmap`/`sigaction` (system calls); it allocates
/// nothing and takes no lock. The slot table is created, and the globals it reads initialised,
/// before the handler is installed.
enum MappingGuard {
    /// Mappings that can be guarded at once (one per hashing thread is the usual need).
    static let slotCount = 256

    /// Installs the handler (once per process) and returns the slot holding `start..<end`, or
    /// `nil` when every slot is taken or the handler could not be installed.
    static func register(start: UnsafeRawPointer, count: Int) -> Int? {
        guard isInstalled else { return nil }
        let low = UInt(bitPattern: start)
        let high = low + UInt(count)
        for i in 0..<slotCount {
            // `ends` is the claim; `starts` is published last, so the handler never sees a
            // slot half-filled.
            guard table.ends[i].compareExchange(expected: 0, desired: high, ordering: .acquiringAndReleasing).exchanged else { continue }
            table.faults[i].store(0, ordering: .relaxed)
            table.starts[i].store(low, ordering: .releasing)
            return i
        }
        return nil
    }

    /// Whether part of the mapping in `slot` vanished while it was read.
    static func hasFaulted(_ slot: Int) -> Bool {
        table.faults[slot].load(ordering: .acquiring) != 0
    }

    /// Frees `slot` (before the mapping is unmapped).
    static func unregister(_ slot: Int) {
        table.starts[slot].store(0, ordering: .releasing)
        table.ends[slot].store(0, ordering: .releasing)
    }

    /// The handler is in place; evaluated once, on the first registration.
    private static let isInstalled: Bool = install()

    private static func install() -> Bool {
        // Touch everything the handler reads, so none of it is initialised inside the handler.
        _ = table
        _ = MappedFile.pageSize
        var action = sigaction()
        #if canImport(Glibc)
        action.__sigaction_handler.sa_sigaction = handleBusError
        #else
        action.__sigaction_u.__sa_sigaction = handleBusError
        #endif
        action.sa_flags = SA_SIGINFO | SA_ONSTACK
        sigemptyset(&action.sa_mask)
        return sigaction(SIGBUS, &action, table.previous) == 0
    }

    /// Slot storage, allocated once and never freed (the handler may read it at any time).
    struct Table: @unchecked Sendable {
        let starts: UnsafeMutablePointer<Atomic<UInt>>
        let ends: UnsafeMutablePointer<Atomic<UInt>>
        let faults: UnsafeMutablePointer<Atomic<UInt>>
        /// The action SIGBUS had before ours, restored for faults that are not ours.
        let previous: UnsafeMutablePointer<sigaction>

        static func make() -> Table {
            func atomics() -> UnsafeMutablePointer<Atomic<UInt>> {
                let pointer = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: MappingGuard.slotCount)
                for i in 0..<MappingGuard.slotCount { (pointer + i).initialize(to: Atomic<UInt>(0)) }
                return pointer
            }
            let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 1)
            previous.initialize(to: sigaction())
            return Table(starts: atomics(), ends: atomics(), faults: atomics(), previous: previous)
        }
    }

    static let table = Table.make()
}

/// The SIGBUS handler (see `MappingGuard`).
private func handleBusError(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?) {
    guard let info else { return }
    #if canImport(Glibc)
    let address = UInt(bitPattern: info.pointee._sifields._sigfault.si_addr)
    #else
    let address = UInt(bitPattern: info.pointee.si_addr)
    #endif
    let table = MappingGuard.table
    var slot = 0
    while slot < MappingGuard.slotCount {
        let start = table.starts[slot].load(ordering: .acquiring)
        let end = table.ends[slot].load(ordering: .acquiring)
        if start != 0, address >= start, address < end {
            let page = address & ~(UInt(MappedFile.pageSize) - 1)
            #if canImport(Glibc)
            let anonymous = MAP_ANONYMOUS
            #else
            let anonymous = MAP_ANON
            #endif
            let replaced = mmap(
                UnsafeMutableRawPointer(bitPattern: page), Int(end - page), PROT_READ,
                MAP_PRIVATE | MAP_FIXED | anonymous, -1, 0)
            if replaced != MAP_FAILED {
                table.faults[slot].store(1, ordering: .releasing)
                return
            }
            break
        }
        slot += 1
    }
    // Not ours (or the pages could not be replaced): the previous action takes the repeat.
    sigaction(SIGBUS, table.previous, nil)
}
