internal import CCompression

/// The compressions Debian indexes come in, undone with the system's liblzma and zlib.
enum Decompression {
    enum Format: String, Sendable {
        case xz, gzip, none

        /// By the index's name: `Packages.xz`, `Packages.gz`, `Packages`.
        init?(path: String) {
            if path.hasSuffix(".xz") {
                self = .xz
            } else if path.hasSuffix(".gz") {
                self = .gzip
            } else if path.hasSuffix(".bz2") || path.hasSuffix(".lzma") || path.hasSuffix(".zst") || path.hasSuffix(".lz4") {
                return nil
            } else {
                self = .none
            }
        }
    }

    /// What xz's decoder may use at most: `xz -9` needs 65 MiB.
    static let memoryLimit: UInt64 = 256 << 20
    static let chunk = 1 << 20

    /// `bytes` decompressed, at most `limit` bytes of it, or why not.
    static func decompress(_ bytes: [UInt8], format: Format, limit: Int) -> Result<[UInt8], DecompressionError> {
        switch format {
        case .none: bytes.count <= limit ? .success(bytes) : .failure(DecompressionError("it is larger than \(limit) bytes"))
        case .xz: xz(bytes, limit: limit)
        case .gzip: gzip(bytes, limit: limit)
        }
    }

    private static func xz(_ bytes: [UInt8], limit: Int) -> Result<[UInt8], DecompressionError> {
        var stream = lzma_stream()
        guard lzma_stream_decoder(&stream, memoryLimit, jobrun_lzma_concatenated) == LZMA_OK else {
            return .failure(DecompressionError("liblzma could not start a decoder"))
        }
        defer { lzma_end(&stream) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        return bytes.withUnsafeBufferPointer { input in
            stream.next_in = input.baseAddress
            stream.avail_in = input.count
            while true {
                let (code, produced) = buffer.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = out.count
                    let code = lzma_code(&stream, LZMA_FINISH)
                    return (code, out.count - stream.avail_out)
                }
                guard output.count + produced <= limit else { return .failure(DecompressionError("it decompresses to more than \(limit) bytes")) }
                output.append(contentsOf: buffer[..<produced])
                switch code {
                case LZMA_OK: continue
                case LZMA_STREAM_END: return .success(output)
                case LZMA_MEMLIMIT_ERROR: return .failure(DecompressionError("it needs more than \(memoryLimit >> 20) MiB to decompress"))
                case LZMA_FORMAT_ERROR: return .failure(DecompressionError("it is not in the xz format"))
                case LZMA_DATA_ERROR, LZMA_BUF_ERROR: return .failure(DecompressionError("its xz data is corrupt or cut short"))
                default: return .failure(DecompressionError("liblzma failed (code \(code.rawValue))"))
                }
            }
        }
    }

    private static func gzip(_ bytes: [UInt8], limit: Int) -> Result<[UInt8], DecompressionError> {
        var stream = z_stream()
        // 15 + 32: a window of 32 KiB, and a gzip or zlib header detected.
        guard jobrun_inflate_init2(&stream, 15 + 32) == Z_OK else { return .failure(DecompressionError("zlib could not start a decoder")) }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        return bytes.withUnsafeBufferPointer { input in
            // zlib reads its input only; its header declares it mutable without ZLIB_CONST.
            stream.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
            stream.avail_in = UInt32(clamping: input.count)
            guard input.count <= Int(UInt32.max) else { return .failure(DecompressionError("it is larger than 4 GiB")) }
            while true {
                let (code, produced) = buffer.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    let code = inflate(&stream, Z_NO_FLUSH)
                    return (code, out.count - Int(stream.avail_out))
                }
                guard output.count + produced <= limit else { return .failure(DecompressionError("it decompresses to more than \(limit) bytes")) }
                output.append(contentsOf: buffer[..<produced])
                switch code {
                case Z_OK: continue
                case Z_STREAM_END:
                    // Several gzip members follow each other (as `cat a.gz b.gz` makes).
                    guard stream.avail_in > 0 else { return .success(output) }
                    guard inflateReset(&stream) == Z_OK else { return .failure(DecompressionError("zlib could not read the next member")) }
                case Z_BUF_ERROR:
                    return stream.avail_in == 0
                        ? .failure(DecompressionError("its gzip data is cut short")) : .failure(DecompressionError("zlib made no progress"))
                default:
                    return .failure(DecompressionError("its gzip data is corrupt (zlib code \(code))"))
                }
            }
        }
    }
}
