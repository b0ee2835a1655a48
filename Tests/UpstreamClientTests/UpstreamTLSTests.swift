import IDTokens
import NIOCore
import NIOPosix
import NIOSSL
import Testing
import TestSupport

@testable import UpstreamClient

/// An https upstream, against a local TLS server on `127.0.0.1`.
@Suite("Upstream TLS")
struct UpstreamTLSTests {
    @Test("an https upstream named by an IPv4 address: no server name is sent (none may be an address), the exchange runs")
    func ipAddressUpstream() async throws {
        let certificate = try NIOSSLCertificate(bytes: Array(TestKeys.primaryCertificatePEM.utf8), format: .pem)
        let server = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: [.certificate(certificate)],
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(TestKeys.primary.pem.utf8), format: .pem))
            )
        )
        // The test certificate is trusted, and names no address: the chain is checked, the name is not.
        var client = TLSConfiguration.makeClientConfiguration()
        client.trustRoots = .certificates([certificate])
        client.certificateVerification = .noHostnameVerification

        let upstream = try await UpstreamPoolTests.Upstream.start(tls: server)
        defer { upstream.channel.close(promise: nil) }
        let pool = upstream.pool(idleTimeout: .seconds(60), tls: try NIOSSLContext(configuration: client))
        defer { pool.shutdown() }
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let connection = try await pool.connect(on: loop).get()
        #expect(try await UpstreamPoolTests.exchange(on: connection, loop) == .ended(status: 200, body: "ok"))
        try await loop.submit { connection.close() }.get()
    }
}
