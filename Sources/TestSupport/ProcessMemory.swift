#if canImport(Glibc)
import Glibc
#endif

/// This process's resident memory from `/proc/self/status` (Linux), for tests that check memory stays flat.
public enum ProcessMemory {
    /// `VmRSS`: resident bytes now; nil where `/proc` is unavailable.
    public static func residentBytes() -> Int? { Self.status("VmRSS:") }

    /// `VmHWM`: the peak resident bytes since start or since ``resetPeak()``.
    public static func peakResidentBytes() -> Int? { Self.status("VmHWM:") }

    /// Resets `VmHWM` to the current resident size (`echo 5 > /proc/self/clear_refs`, Linux 4.0+); false when
    /// that is not possible.
    @discardableResult
    public static func resetPeak() -> Bool {
        #if canImport(Glibc)
        guard let file = fopen("/proc/self/clear_refs", "w") else { return false }
        defer { fclose(file) }
        return fputs("5", file) >= 0 && fflush(file) == 0
        #else
        return false
        #endif
    }

    private static func status(_ key: String) -> Int? {
        #if canImport(Glibc)
        guard let file = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix(key) else { continue }
            // "VmRSS:	   13496 kB"
            let digits = text.dropFirst(key.count).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
        #else
        return nil
        #endif
    }
}
