import CurlHTTP
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// `StoryGateBenchmarks curl`: CurlHTTP against an in-process HummingbirdCore server on 127.0.0.1.
///
/// 1. 5,000 concurrent GETs to a handler that answers after 1 s: total wall time (target < 3 s) and the
///    process's peak thread count while they run (target < 32).
/// 2. Sequential small GETs over one reused connection: requests per second.
func runCurlBenchmarks() async throws {
    var logger = Logger(label: "CurlBenchmarks")
    logger.logLevel = .critical
    let server = try await CurlBenchmarkServer.start(logger: logger)
    let client = CurlClient(configuration: .init(maxCachedConnections: 64), logger: logger)
    let run = Task { try await client.run() }
    defer { run.cancel() }

    print("curl: libcurl client vs in-process HummingbirdCore server on \(server.baseURL)")
    print("curl: threads before: \(ProcessThreads.current())")

    // 1. Fan-out against a slow server.
    let concurrent = 5_000
    let sampler = ProcessThreads.Sampler()
    let fanOut = try await ContinuousClock().measure {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<concurrent {
                group.addTask {
                    let response = try await client.execute(CurlRequest(url: server.baseURL + "/slow", timeout: .seconds(20)))
                    return response.status == 200
                }
            }
            var ok = 0
            for try await success in group where success {
                ok += 1
            }
            precondition(ok == concurrent, "only \(ok) of \(concurrent) calls succeeded")
        }
    }
    let peakThreads = await sampler.stop()
    print("curl: \(concurrent) concurrent calls to a 1 s handler: \(fanOut) wall (target < 3 s), peak threads \(peakThreads) (target < 32)")

    // 2. Sequential small GETs over one kept-alive connection (after a warm-up call opens it).
    _ = try await client.execute(CurlRequest(url: server.baseURL + "/small"))
    let sequential = 5_000
    let serial = try await ContinuousClock().measure {
        for _ in 0..<sequential {
            let response = try await client.execute(CurlRequest(url: server.baseURL + "/small"))
            precondition(response.status == 200)
        }
    }
    let seconds = Double(serial.components.seconds) + Double(serial.components.attoseconds) / 1e18
    let perSecond = Int(Double(sequential) / seconds)
    print("curl: \(sequential) sequential small GETs in \(serial): \(perSecond) requests/s")
    print("curl: threads after: \(ProcessThreads.current())")

    run.cancel()
    try await run.value
    await server.shutdown()
}

/// A minimal HummingbirdCore server: `/slow` answers after 1 s, anything else at once.
private final class CurlBenchmarkServer: Sendable {
    let port: Int
    private let task: Task<Void, Never>

    var baseURL: String { "http://127.0.0.1:\(self.port)" }

    private init(port: Int, task: Task<Void, Never>) {
        self.port = port
        self.task = task
    }

    static func start(logger: Logger) async throws -> CurlBenchmarkServer {
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let server = try HTTPServerBuilder.http1().buildServer(
            configuration: .init(address: .hostname("127.0.0.1", port: 0), backlog: 4096),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: logger,
            responder: { request, writer, _ in
                if request.head.path == "/slow" {
                    try await Task.sleep(for: .seconds(1))
                }
                let body = ByteBuffer(string: "ok")
                let head = HTTPResponse(status: .ok, headerFields: [.contentLength: "\(body.readableBytes)"])
                try await writer.write(response: head, body: ResponseBody(byteBuffer: body))
            },
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            }
        )
        let task = Task {
            try? await server.run()
            portContinuation.finish()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port != 0 else {
            task.cancel()
            throw ChannelError.unknownLocalAddress
        }
        return CurlBenchmarkServer(port: port, task: task)
    }

    func shutdown() async {
        self.task.cancel()
        await self.task.value
    }
}

/// The process's thread count, from `/proc/self/status`.
private enum ProcessThreads {
    static func current() -> Int {
        guard let file = fopen("/proc/self/status", "r") else { return -1 }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            guard count > 0 else { break }
            bytes.append(contentsOf: buffer[..<count])
        }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("Threads:") {
            return Int(line.dropFirst("Threads:".count).filter { !$0.isWhitespace }) ?? -1
        }
        return -1
    }

    /// Samples the thread count every 50 ms until stopped; returns the peak.
    final class Sampler: Sendable {
        private let task: Task<Int, Never>

        init() {
            self.task = Task {
                var peak = ProcessThreads.current()
                while !Task.isCancelled {
                    peak = max(peak, ProcessThreads.current())
                    try? await Task.sleep(for: .milliseconds(50))
                }
                return peak
            }
        }

        func stop() async -> Int {
            self.task.cancel()
            return await self.task.value
        }
    }
}
