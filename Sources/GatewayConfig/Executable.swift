#if canImport(Glibc)
import Glibc
#endif

/// The running executable's location, from `/proc/self/exe`.
public enum Executable {
    /// The executable's absolute path (symbolic links resolved), nil when it cannot be read.
    public static let path: String? = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// The folder holding `path` (`/` for a file at the root).
    public static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `folder` and each folder above it, nearest first, up to `/`.
    public static func foldersUp(from folder: String) -> [String] {
        var result: [String] = []
        var current = folder
        while true {
            result.append(current)
            if current == "/" || !current.contains("/") { return result }
            current = Self.folder(of: current)
        }
    }
}
