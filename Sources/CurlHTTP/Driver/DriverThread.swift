#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts the one detached OS thread a ``CurlClient`` drives libcurl on (not a Swift concurrency task:
/// `curl_multi_poll` blocks, and must never block the cooperative pool or an event loop).
enum DriverThread {
    private final class Entry {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Runs `body` on a new detached thread, named `name` where the platform lets Swift name threads.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let entry = Unmanaged.passRetained(Entry(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
        var thread: pthread_t? = nil
        #else
        var thread = pthread_t()
        #endif
        let result = pthread_create(&thread, &attributes, { context in
            let entry = Unmanaged<Entry>.fromOpaque(context!).takeRetainedValue()
            #if canImport(Darwin)
            pthread_setname_np(entry.name)
            #endif
            // Glibc hides pthread_setname_np from Swift (it needs _GNU_SOURCE); the thread stays unnamed on Linux.
            entry.body()
            return nil
        }, entry)
        precondition(result == 0, "pthread_create failed: \(result)")
    }
}
