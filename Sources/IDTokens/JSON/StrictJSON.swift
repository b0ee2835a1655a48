/// The strict RFC 8259 reading of ``JSONParser`` for other modules: a request body checked as one JSON object, so a
/// duplicate member (which parsers resolve differently, a parser differential) is refused, not silently resolved.
public enum StrictJSON {
    /// Why `bytes` is not one strict JSON object (`"an object has a duplicate member name"`), or nil when it is.
    public static func problem(inObject bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { buffer in
            do throws(JSONError) {
                _ = try JSONParser.parseObject(buffer, range: 0..<buffer.count)
                return nil
            } catch {
                return error.message
            }
        }
    }
}
