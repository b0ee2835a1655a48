package import HTTPTypes
package import NIOCore

/// HTTP/1.1 heads as bytes, for what the gateway writes itself (its answers to clients, its requests to
/// upstreams). Field values are valid by construction (`HTTPField` guarantees it).
package enum HeadBytes {
    /// `HTTP/1.1 <code> <reason>\r\n`.
    package static func writeStatusLine(_ status: HTTPResponse.Status, into bytes: inout ByteBuffer) {
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
    package static func writeField(_ field: HTTPField, into bytes: inout ByteBuffer) {
        var name = field.name.rawName
        var value = field.value
        name.withUTF8 { name in
            value.withUTF8 { value in
                Self.writeLine(UnsafeRawBufferPointer(name), UnsafeRawBufferPointer(value), into: &bytes)
            }
        }
    }

    /// `<name>: <value>\r\n` from bytes, in one write: a head is dozens of small pieces, and each write to a
    /// `ByteBuffer` is an exclusive access to its storage, checked at run time.
    package static func writeLine(_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, into bytes: inout ByteBuffer) {
        let length = name.count + value.count + 4
        bytes.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { out in
            if name.count > 0 { out.baseAddress!.copyMemory(from: name.baseAddress!, byteCount: name.count) }
            var offset = name.count
            out[offset] = UInt8(ascii: ":")
            out[offset + 1] = UInt8(ascii: " ")
            offset += 2
            if value.count > 0 { (out.baseAddress! + offset).copyMemory(from: value.baseAddress!, byteCount: value.count) }
            offset += value.count
            out[offset] = UInt8(ascii: "\r")
            out[offset + 1] = UInt8(ascii: "\n")
            return length
        }
    }
}

/// Where header rules write the fields they make: `HTTPFields`, or the bytes of a head (a `ByteBuffer`, as
/// `name: value` lines, with no `HTTPFields` in between).
package protocol FieldOutput {
    /// A field that is valid already (one of the client's, or one made as an `HTTPField`).
    mutating func append(_ field: HTTPField)
}

extension FieldOutput {
    /// A field the gateway makes; its value is made valid as `HTTPField` makes it.
    package mutating func append(_ name: HTTPField.Name, _ value: String) {
        self.append(HTTPField(name: name, value: value))
    }
}

extension HTTPFields: FieldOutput {}

extension ByteBuffer: FieldOutput {
    /// `name: value\r\n` (``HeadBytes/writeField(_:into:)``).
    package mutating func append(_ field: HTTPField) {
        HeadBytes.writeField(field, into: &self)
    }
}
