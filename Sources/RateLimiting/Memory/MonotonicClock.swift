#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Seconds on the monotonic clock: the default `now` of the in-memory store, immune to wall-clock steps.
public enum MonotonicClock {
    /// Seconds since an arbitrary fixed point (CLOCK_MONOTONIC); only differences are meaningful.
    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
    }
}
