import HTTPTypes
import HTTPWire
import NIOCore

/// Where an exchange's answer goes, on the client connection's event loop: bytes onto the socket (``ConnectionHandler``).
protocol AnswerSink: AnyObject {
    var isWritable: Bool { get }
    func writeHead(_ response: HTTPResponse, for request: EdgeRequest)
    /// An upstream's answer head with the gateway's fields (``GatewayResponder/appendAnswerFields(to:for:answerHasDate:)``).
    func writeUpstreamHead(_ head: UpstreamHead, for request: EdgeRequest, responder: GatewayResponder)
    func writeBody(_ buffer: ByteBuffer)
    func flush()
    /// Ends the answer and flushes it.
    func writeEnd(for request: EdgeRequest)
    func closeConnection()
    /// Whether the exchange takes the request body's parts now (``ConnectionExchange/requestBody(_:)``); the first
    /// `true` answers `Expect: 100-continue`.
    func requestBodyWanted(_ wanted: Bool)
    /// The exchange has written its answer's end, or given up.
    func exchangeFinished(_ exchange: any ConnectionExchange)
}
