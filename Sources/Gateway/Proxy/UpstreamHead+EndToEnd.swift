import HTTPTypes
import HTTPWire
import NIOCore

extension UpstreamHead {
    /// Writes the field lines the client gets, as `name: value\r\n` in the order received: all but the hop-by-hop
    /// ones (``HopByHopHeaders``) and those `Connection` names, the field named `omitting` (one the gateway sets
    /// itself), and `Content-Length` on an answer that has no body; a repeated `Content-Length` once. Exactly what
    /// ``HopByHopHeaders/responseFields(_:)`` keeps of ``response``, and the connection's answer writer after it.
    /// - Returns: whether a `Content-Length` and a `Date` were written.
    func writeEndToEndFields(
        into bytes: inout ByteBuffer, omitting: HTTPField.Name, withoutBody: Bool
    ) -> (contentLength: Bool, date: Bool) {
        var listed: [Range<Int>] = []
        if self.connectionNamesFields {
            self.forEachField { p, name, value, _ in
                guard name.count == 10, HTTPListValue.equalsLowercased(p, name.lowerBound, "connection") else { return }
                HTTPListValue.forEachElement(p, value.lowerBound, value.upperBound) { start, end in
                    if end > start { listed.append(start..<end) }
                }
            }
        }
        var omitted = omitting.canonicalName
        return omitted.withUTF8 { omitted in
            var written = (contentLength: false, date: false)
            // Lines that pass as they came (already `name: value\r\n`), one after another, are copied in one write.
            var run: Range<Int>?
            self.forEachField { p, name, value, line in
                let raw = UnsafeRawBufferPointer(p)
                func flushRun() {
                    guard let pending = run else { return }
                    run = nil
                    bytes.writeBytes(UnsafeRawBufferPointer(rebasing: raw[pending]))
                }
                if HopByHopHeaders.isHopByHop(p, name) { return flushRun() }
                if UpstreamHead.equalsIgnoringCase(p, name, omitted, 0..<omitted.count) { return flushRun() }
                if !listed.isEmpty, listed.contains(where: { UpstreamHead.equalsIgnoringCase(p, name, p, $0) }) { return flushRun() }
                if name.count == 14, HTTPListValue.equalsLowercased(p, name.lowerBound, "content-length") {
                    if withoutBody || written.contentLength { return flushRun() }
                    written.contentLength = true
                    if let length = self.repeatedContentLength {
                        flushRun()
                        var digits = String(length)
                        digits.withUTF8 { HeadBytes.writeLine(UnsafeRawBufferPointer(rebasing: raw[name]), UnsafeRawBufferPointer($0), into: &bytes) }
                        return
                    }
                } else if name.count == 4, HTTPListValue.equalsLowercased(p, name.lowerBound, "date") {
                    written.date = true
                }
                let normalized =
                    value.lowerBound == name.upperBound + 2 && p[name.upperBound + 1] == UInt8(ascii: " ") && value.upperBound + 2 == line.upperBound
                if normalized {
                    if let pending = run, pending.upperBound == line.lowerBound {
                        run = pending.lowerBound..<line.upperBound
                    } else {
                        flushRun()
                        run = line
                    }
                } else {
                    flushRun()
                    HeadBytes.writeLine(
                        UnsafeRawBufferPointer(rebasing: raw[name]), UnsafeRawBufferPointer(rebasing: raw[value]), into: &bytes
                    )
                }
            }
            if let pending = run {
                _ = self.lines.withUnsafeReadableBytes { bytes.writeBytes(UnsafeRawBufferPointer(rebasing: $0[pending])) }
            }
            return written
        }
    }
}
