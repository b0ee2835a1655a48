import GatewayConfig
import IDTokens

#if canImport(Glibc)
import Glibc
#endif

/// The process metrics of the Prometheus client conventions, read from `/proc` at scrape time: CPU time, resident
/// memory, open file descriptors and the start time. A value that cannot be read is left out.
enum ProcessMetrics {
    /// The lines in the Prometheus text format.
    static func lines() -> String {
        var text = ""
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let stat = Self.selfStat()
        if let stat, ticks > 0 {
            text += Self.family("process_cpu_seconds_total", "counter", "User and system CPU time spent, in seconds.", stat.cpuTicks / ticks)
        }
        if let pages = Self.residentPages() {
            let bytes = pages * Double(sysconf(Int32(_SC_PAGESIZE)))
            text += Self.family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", bytes)
        }
        if let count = Self.openDescriptors() {
            text += Self.family("process_open_fds", "gauge", "Number of open file descriptors.", Double(count))
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {
            text += Self.family("process_max_fds", "gauge", "Maximum number of open file descriptors.", Double(limit.rlim_cur))
        }
        if let stat, ticks > 0, let boot = Self.bootTime() {
            let start = boot + stat.startTicks / ticks
            text += Self.family("process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch, in seconds.", start)
        }
        return text
    }

    private static func family(_ name: String, _ type: String, _ help: String, _ value: Double) -> String {
        let number = value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        return "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(number)\n"
    }

    /// utime + stime and starttime from `/proc/self/stat`, in clock ticks. The fields after the command name (which
    /// is in parentheses and may hold spaces) are counted from its closing parenthesis.
    static func selfStat() -> (cpuTicks: Double, startTicks: Double)? {
        guard let text = Self.text("/proc/self/stat"), let close = text.lastIndex(of: ")") else { return nil }
        // After ")": field 3 (state) is index 0, so field N is index N - 3.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let user = Double(fields[14 - 3]), let system = Double(fields[15 - 3]), let start = Double(fields[22 - 3]) else {
            return nil
        }
        return (user + system, start)
    }

    /// The second field of `/proc/self/statm`.
    private static func residentPages() -> Double? {
        guard let fields = Self.text("/proc/self/statm")?.split(separator: " "), fields.count > 1 else { return nil }
        return Double(fields[1])
    }

    /// Entries of `/proc/self/fd`, less the one the listing itself holds open.
    private static func openDescriptors() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        // `d_name` is read in place: the entry readdir returns may end right after the name, before the 256 bytes
        // its declared type has, so copying the field could read past a page's end.
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19
        while let entry = readdir(directory) {
            let isDot = (UnsafeRawPointer(entry) + nameOffset).load(as: UInt8.self) == UInt8(ascii: ".")
            if !isDot { count += 1 }
        }
        return max(0, count - 1)
    }

    /// `btime` in `/proc/stat`: when the machine booted, in seconds since the epoch.
    private static func bootTime() -> Double? {
        guard let text = Self.text("/proc/stat") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst("btime ".count))
        }
        return nil
    }

    private static func text(_ path: String) -> String? {
        (try? FileBytes.read(path: path, limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: "\n") }
    }
}
