import Logging

/// The loop on the driver thread: takes queued work from the ``DriverMailbox``, adds and removes easy
/// handles, runs `curl_multi_perform`, reports finished transfers and sleeps in `curl_multi_poll`
/// until libcurl or a caller (through `curl_multi_wakeup`) has something.
///
/// `@unchecked Sendable`: made by `CurlClient.run()` and from then on used only by the driver thread,
/// which owns the multi handle and every easy handle.
final class CurlDriver: @unchecked Sendable {
    private let multi: CurlMulti
    private let mailbox: DriverMailbox
    private let configuration: CurlClient.Configuration
    private let logger: Logger
    private let onExit: @Sendable () -> Void

    /// Transfers in the multi handle, by id and by raw easy handle.
    private var transfers: [TransferID: CurlEasy] = [:]
    private var ids: [UnsafeMutableRawPointer: TransferID] = [:]

    /// How long `curl_multi_poll` sleeps at most when libcurl has no earlier timer (ms).
    private static let idlePollMilliseconds: Int32 = 1000

    init(
        multi: CurlMulti,
        mailbox: DriverMailbox,
        configuration: CurlClient.Configuration,
        logger: Logger,
        onExit: @escaping @Sendable () -> Void
    ) {
        self.multi = multi
        self.mailbox = mailbox
        self.configuration = configuration
        self.logger = logger
        self.onExit = onExit
    }

    /// The thread's body; returns after shutdown, with every transfer removed and resumed.
    func run() {
        self.logger.debug("curl driver thread started")
        while true {
            let work = self.mailbox.takeWork()
            for id in work.removals {
                self.removeCancelled(id)
            }
            if work.stop {
                break
            }
            for (id, request) in work.starts {
                self.start(id, request)
            }
            self.multi.perform()
            self.reportCompleted()
            self.multi.poll(timeoutMilliseconds: Self.idlePollMilliseconds)
        }
        let unfinished = self.transfers.count
        for easy in self.transfers.values {
            self.multi.remove(easy)
        }
        self.transfers.removeAll()
        self.ids.removeAll()
        self.mailbox.driverStopped()  // drops the waker: now nobody else touches the multi handle
        self.multi.close()
        self.logger.debug("curl driver thread stopped", metadata: ["unfinished_transfers": .stringConvertible(unfinished)])
        self.onExit()
    }

    private func start(_ id: TransferID, _ request: CurlRequest) {
        let easy: CurlEasy
        do {
            // `CurlClient.execute` validated the request already.
            easy = try CurlEasy(request: request, configuration: self.configuration)
        } catch {
            self.mailbox.complete(id, with: .failure(error))
            return
        }
        guard self.multi.add(easy) else {
            self.mailbox.complete(id, with: .failure(CurlError.other.with(curlCode: -1, detail: "curl_multi_add_handle failed")))
            return
        }
        self.transfers[id] = easy
        self.ids[easy.handle] = id
    }

    private func removeCancelled(_ id: TransferID) {
        // Not here if it finished (and was reported) before the cancellation reached the driver.
        guard let easy = self.transfers.removeValue(forKey: id) else { return }
        self.ids[easy.handle] = nil
        self.multi.remove(easy)
        self.logger.trace("curl transfer cancelled", metadata: ["transfer": "\(id)"])
        self.mailbox.complete(id, with: .failure(.cancelled))
    }

    private func reportCompleted() {
        while let (handle, result) = self.multi.nextCompleted() {
            guard let id = self.ids.removeValue(forKey: handle), let easy = self.transfers.removeValue(forKey: id) else {
                continue
            }
            self.multi.remove(easy)
            let response = easy.response
            if let error = result.error(exceededLimit: response.exceededLimit, detail: easy.errorText) {
                self.logger.debug(
                    "curl transfer failed",
                    metadata: ["transfer": "\(id)", "error": "\(error.shortDescription)", "curl_code": .stringConvertible(Int(result.rawValue))]
                )
                self.mailbox.complete(id, with: .failure(error))
            } else {
                let value = CurlResponse(
                    status: easy.responseCode,
                    headers: response.headers,
                    body: response.body,
                    httpVersion: easy.httpVersion
                )
                self.mailbox.complete(id, with: .success(value))
            }
        }
    }
}
