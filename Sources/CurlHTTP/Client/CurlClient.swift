public import Logging
public import ServiceLifecycle

/// An async HTTP client on libcurl's multi interface, for all of the gateway's own outbound HTTP.
///
/// One dedicated OS thread (started by ``run()``) drives every transfer: it loops on `curl_multi_poll`
/// and is woken with `curl_multi_wakeup` when a call is queued. Callers never block: ``execute(_:)``
/// queues the request and suspends until the driver resumes it. Connections are reused from the multi
/// handle's cache, HTTP/2 is used over TLS when the server offers it, and several requests may share
/// one HTTP/2 connection.
///
/// Run it as a `Service` in the application's `ServiceGroup`. Calls made before ``run()`` starts wait
/// and are served once it runs; after shutdown (graceful shutdown or cancellation of ``run()``) every
/// pending and later call fails with ``CurlError/shutdown``.
///
/// ```swift
/// let client = CurlClient(logger: logger)
/// // in a ServiceGroup, or: Task { try await client.run() }
/// let response = try await client.execute(CurlRequest(url: "https://www.googleapis.com/…"))
/// ```
public final class CurlClient: Service, Sendable {
    /// The settings this client was made with.
    public let configuration: Configuration
    private let logger: Logger
    private let mailbox = DriverMailbox()

    /// A client; nothing starts until ``run()``.
    public init(configuration: Configuration = .init(), logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Starts the driver thread and returns once the client has shut down: after graceful shutdown
    /// or cancellation, with the thread stopped, every transfer removed and every pending call failed
    /// with ``CurlError/shutdown``. A second call returns at once.
    public func run() async throws {
        let multi: CurlMulti
        do {
            multi = try CurlMulti(configuration: self.configuration)
        } catch {
            self.mailbox.requestShutdown()  // fail calls queued for a client that cannot run
            throw error
        }
        guard self.mailbox.beginRunning(waker: multi.waker) else {
            self.logger.warning("CurlClient.run() called on a client that is running or has stopped; returning")
            return
        }
        let mailbox = self.mailbox
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (exited: CheckedContinuation<Void, Never>) in
                    let driver = CurlDriver(
                        multi: multi,
                        mailbox: mailbox,
                        configuration: self.configuration,
                        logger: self.logger,
                        onExit: { exited.resume() }
                    )
                    DriverThread.start(name: "curl-driver") { driver.run() }
                }
            } onCancel: {
                mailbox.requestShutdown()
            }
        } onGracefulShutdown: {
            mailbox.requestShutdown()
        }
    }

    /// Sends `request` and returns the whole response. Any status code is a response.
    ///
    /// - Throws: ``CurlError``: ``CurlError/timeout``, ``CurlError/connectFailed``,
    ///   ``CurlError/connectionReset``, ``CurlError/responseTooLarge``, ``CurlError/invalidResponse``,
    ///   ``CurlError/invalidRequest``, ``CurlError/other``; ``CurlError/cancelled`` when the calling task is
    ///   cancelled (the transfer is removed at once); ``CurlError/shutdown`` once the client stops.
    public func execute(_ request: CurlRequest) async throws -> CurlResponse {
        try request.validate()
        let mailbox = self.mailbox
        let id = mailbox.makeTransferID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: DriverMailbox.Continuation) in
                mailbox.submit(id, request, continuation)
            }
        } onCancel: {
            mailbox.cancel(id)
        }
    }
}
