#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The few blocking file calls the media store makes, with `EINTR` and short reads/writes handled.
/// Failures throw `FunctionError.storage` (no path or errno reaches a client).
enum POSIXFile {
    /// `mkdir -p` with mode 0755.
    static func makeDirectory(_ path: String) throws(FunctionError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") where !component.isEmpty {
            current += "/" + component
            if mkdir(current, 0o755) != 0, errno != EEXIST { throw .storage }
        }
    }

    /// Writes `bytes` to a fresh temporary file in `directory`, then renames it to `path`: readers see the whole
    /// file or nothing.
    static func writeAtomically(_ bytes: [UInt8], to path: String, directory: String) throws(FunctionError) {
        let temporary = directory + "/.tmp-" + MediaKey.make()
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .storage }
        var written = 0
        let ok = bytes.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let result = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += result
            }
            return true
        }
        let closed = close(descriptor) == 0
        guard ok, closed, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw .storage
        }
    }

    /// The bytes of `range` (clamped), or the whole file; nil when the file does not exist.
    static func read(_ path: String, range: Range<Int>?) throws(FunctionError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw .storage
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .storage }
        let size = Int(status.st_size)
        let wanted = range.map { $0.clamped(to: 0..<size) } ?? 0..<size
        if wanted.isEmpty { return [] }
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: wanted.count) { buffer, initialized in
            var done = 0
            while done < wanted.count {
                let result = pread(descriptor, buffer.baseAddress! + done, wanted.count - done, off_t(wanted.lowerBound + done))
                if result < 0 {
                    if errno == EINTR { continue }
                    failed = true
                    break
                }
                if result == 0 { break }
                done += result
            }
            initialized = done
        }
        if failed { throw .storage }
        return bytes
    }
}
