#if canImport(Glibc)
internal import CLinux
#endif

/// Memory the process has freed, handed back to the system.
public enum FreedMemory {
    /// Returns the free pages of every malloc arena (glibc's `malloc_trim`): a thread's arena
    /// keeps what that thread freed, in the resident memory, for as long as the process runs.
    /// Does nothing where there is no such call.
    public static func release() {
        #if canImport(Glibc)
        _ = malloc_trim(0)
        #endif
    }
}
