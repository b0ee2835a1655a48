import HTTPTypes
import NIOCore

/// HTTP/1.1 heads as bytes, for what the gateway writes below SwiftNIO's encoder (the raw path's answers, the direct
/// path's upstream requests, answers to CONNECT). Field values are valid by construction (`HTTPField` guarantees it).
enum ResponseHeadBytes {
    /// `HTTP/1.1 <code> <reason>\r\n`.
    static func writeStatusLine(_ status: HTTPResponse.Status, into bytes: inout ByteBuffer) {
        if status.code == 200, status.reasonPhrase == "OK" {
            // Most answers: no number to format.
            bytes.writeStaticString("HTTP/1.1 200 OK\r\n")
            return
        }
        bytes.writeStaticString("HTTP/1.1 ")
        bytes.writeString(String(status.code))
        bytes.writeStaticString(" ")
        bytes.writeString(status.reasonPhrase)
        bytes.writeStaticString("\r\n")
    }

    /// `<name>: <value>\r\n`.
    static func writeField(_ field: HTTPField, into bytes: inout ByteBuffer) {
        Self.writeField(field.name, field.value, into: &bytes)
    }

    /// `<name>: <value>\r\n`; `value` must be a valid field value (the gateway's own: an id, a date, a token).
    static func writeField(_ name: HTTPField.Name, _ value: String, into bytes: inout ByteBuffer) {
        bytes.writeString(name.rawName)
        bytes.writeStaticString(": ")
        bytes.writeString(value)
        bytes.writeStaticString("\r\n")
    }
}
