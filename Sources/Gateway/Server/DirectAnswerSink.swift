import HTTPTypes
import HTTPWire
import NIOCore

/// Where an exchange's answer goes, on the client connection's event loop: bytes onto the socket (``ConnectionHandler``).
protocol DirectAnswerSink: AnyObject {
    var isWritable: Bool { get }
    func writeHead(_ response: HTTPResponse, for request: DirectRequest)
    /// An upstream's answer head with the gateway's fields (``GatewayResponder/appendDirectFields(to:for:answerHasDate:)``).
    func writeUpstreamHead(_ head: UpstreamHead, for request: DirectRequest, responder: GatewayResponder)
    func writeBody(_ buffer: ByteBuffer)
    func flush()
    /// Ends the answer and flushes it.
    func writeEnd(for request: DirectRequest)
    func closeConnection()
    /// Whether the exchange takes the request body's parts now (``ConnectionExchange/requestBody(_:)``); the first
    /// `true` answers `Expect: 100-continue`.
    func requestBodyWanted(_ wanted: Bool)
    /// The exchange has written its answer's end, or given up.
    func exchangeFinished(_ exchange: any ConnectionExchange)
}
