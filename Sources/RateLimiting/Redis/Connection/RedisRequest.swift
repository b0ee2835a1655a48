import NIOCore

/// A command on its way into the pipeline: the promise for its reply and when the caller stops waiting.
struct RedisRequest: Sendable {
    let command: RedisCommand
    let promise: EventLoopPromise<RESPValue>
    let deadline: NIODeadline
    /// Whether `ASKING` goes right before the command, on the same connection (after a cluster's `ASK`).
    var asking = false
}
