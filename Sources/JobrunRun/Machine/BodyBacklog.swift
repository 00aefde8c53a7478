import JobrunCore
/// The bodies received and not yet checked or stored: those waiting on the driver's thread
/// and the memory bodies with the ``DiskWorker``. Each holds its memory, so past the bounds no new
/// slice starts until the backlog shrinks. A part of the run's machine.
struct BodyBacklog {
    /// Finished transfers waiting on the driver's thread to be checked,
    static let mostWaiting = 64
    /// and their bytes with the disk worker's (memory bodies only).
    static let mostBytes = ByteCount(8 << 20)
    /// Memory bodies with the disk worker: enough to keep it busy while the disk is slow to create files.
    static let mostStoring = 256

    /// Bodies and the bytes of those in memory, counted as they come and go.
    struct Tally {
        private(set) var bodies = 0
        private(set) var bytes: ByteCount = 0

        mutating func add(_ size: ByteCount) {
            bodies += 1
            bytes += size
        }

        mutating func remove(_ size: ByteCount) {
            bodies -= 1
            bytes -= size
        }
    }

    /// Memory bodies handed to the disk worker and not yet reported back.
    private var withDisk = Tally()
    /// Finished transfers waiting on the driver's thread to be checked.
    private var onDriver = Tally()

    var storing: Int { withDisk.bodies }
    var storingBytes: ByteCount { withDisk.bytes }
    var waiting: Int { onDriver.bodies }
    var waitingBytes: ByteCount { onDriver.bytes }

    /// A finished transfer's body waits on the driver's thread; `bytes` of it in memory.
    mutating func waits(bytes: ByteCount) { onDriver.add(bytes) }

    /// A waiting body is taken to be checked.
    mutating func taken(bytes: ByteCount) { onDriver.remove(bytes) }

    mutating func handed(bytes: ByteCount) { withDisk.add(bytes) }

    mutating func returned(bytes: ByteCount) { withDisk.remove(bytes) }

    /// Whether slices may start while the disk worker and the driver's thread hold what they hold.
    var admitsStarts: Bool {
        storing <= Self.mostStoring && waiting <= Self.mostWaiting && storingBytes + waitingBytes <= Self.mostBytes
    }
}
