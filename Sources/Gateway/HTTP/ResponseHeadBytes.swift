import HTTPTypes
import NIOCore

/// An HTTP/1.1 response head as bytes, for the answers the gateway writes below SwiftNIO's encoder (the raw path,
/// and answers to CONNECT). Field values are valid by construction (`HTTPField` guarantees it).
enum ResponseHeadBytes {
    /// `HTTP/1.1 <code> <reason>\r\n`.
    static func writeStatusLine(_ status: HTTPResponse.Status, into bytes: inout ByteBuffer) {
        bytes.writeStaticString("HTTP/1.1 ")
        bytes.writeString(String(status.code))
        bytes.writeStaticString(" ")
        bytes.writeString(status.reasonPhrase)
        bytes.writeStaticString("\r\n")
    }

    /// `<name>: <value>\r\n`.
    static func writeField(_ field: HTTPField, into bytes: inout ByteBuffer) {
        bytes.writeString(field.name.rawName)
        bytes.writeStaticString(": ")
        bytes.writeString(field.value)
        bytes.writeStaticString("\r\n")
    }
}
