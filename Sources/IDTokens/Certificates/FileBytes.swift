#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads small local files (certificates, keys) without Foundation.
public enum FileBytes {
    public struct ReadError: Error, CustomStringConvertible {
        public let path: String
        public let errno: Int32
        public var description: String { "cannot read \(self.path): \(String(cString: strerror(self.errno)))" }
    }

    /// The whole file, at most `limit` bytes (certificate files are a few KiB).
    public static func read(path: String, limit: Int = 1 << 20) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw ReadError(path: path, errno: errno) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count > 0 { bytes.append(contentsOf: chunk[0..<count]) }
            if bytes.count > limit { throw ReadError(path: path, errno: EFBIG) }
            if count < chunk.count {
                if ferror(file) != 0 { throw ReadError(path: path, errno: errno) }
                return bytes
            }
        }
    }
}
