import Foundation

/// Runs blocking work (a child process to wait for, a pipe to drain) on a thread of its own: never on Swift's
/// cooperative pool, which has one thread per core and which every gateway and server in the test process needs.
public func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
