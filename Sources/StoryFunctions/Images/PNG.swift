/// Minimal PNG writing and checking.
public enum PNG {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A real PNG: 8-bit RGB, a diagonal gradient between two colours drawn from `seed`, filter type 0 rows,
    /// one IDAT holding a zlib stream of stored deflate blocks with its Adler-32, CRC-32 on every chunk, IEND.
    public static func image(width: Int, height: Int, seed: UInt64) -> [UInt8] {
        precondition(width > 0 && height > 0 && width <= 4096 && height <= 4096)
        var random = SeededRandom(seed: seed)
        let from = (UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random))
        let to = (UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random))
        let rowLength = 1 + width * 3
        // The colour depends on x + y only: one diagonal strip of colours, each row a window into it.
        let span = max(1, width + height - 2)
        var diagonal = [UInt8](repeating: 0, count: (width + height - 1) * 3)
        for step in 0..<(width + height - 1) {
            let t = step * 255 / span
            diagonal[step * 3] = blend(from.0, to.0, t)
            diagonal[step * 3 + 1] = blend(from.1, to.1, t)
            diagonal[step * 3 + 2] = blend(from.2, to.2, t)
        }
        var raw = [UInt8](repeating: 0, count: rowLength * height)
        raw.withUnsafeMutableBufferPointer { pixels in
            diagonal.withUnsafeBufferPointer { strip in
                for y in 0..<height {  // filter byte 0 stays
                    let row = UnsafeMutableBufferPointer(rebasing: pixels[(y * rowLength + 1)..<((y + 1) * rowLength)])
                    _ = row.initialize(from: strip[(y * 3)..<((y + width) * 3)])
                }
            }
        }
        return self.rgb(width: width, height: height, zlib: self.zlibStored(raw))
    }

    /// An 8-bit RGB PNG around `zlib`, the zlib stream of its filtered rows (one IDAT chunk).
    static func rgb(width: Int, height: Int, zlib: [UInt8]) -> [UInt8] {
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0]  // depth 8, RGB, deflate, filter 0, no interlace
        var png = self.signature
        png.reserveCapacity(zlib.count + 64)
        self.appendChunk("IHDR", header, to: &png)
        self.appendChunk("IDAT", zlib, to: &png)
        self.appendChunk("IEND", [], to: &png)
        return png
    }

    /// True when `bytes` is a well-formed PNG: the signature, then chunks with lengths in bounds and correct
    /// CRC-32s, IHDR first (13 bytes, non-zero size), at least one IDAT, and IEND last.
    public static func isPNG(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 8 + 25 + 12, bytes.starts(with: self.signature) else { return false }
        var offset = 8
        var index = 0
        var sawData = false
        while offset + 12 <= bytes.count {
            let length = Int(bytes.readBigEndianUInt32(at: offset))
            guard length <= bytes.count - offset - 12 else { return false }
            let type = bytes[(offset + 4)..<(offset + 8)]
            let end = offset + 8 + length
            guard Checksums.crc32(bytes[(offset + 4)..<end]) == bytes.readBigEndianUInt32(at: end) else { return false }
            let name = String(decoding: type, as: UTF8.self)
            if index == 0 {
                guard name == "IHDR", length == 13, bytes.readBigEndianUInt32(at: offset + 8) > 0,
                      bytes.readBigEndianUInt32(at: offset + 12) > 0 else { return false }
            }
            if name == "IDAT" { sawData = true }
            if name == "IEND" { return sawData && end + 4 == bytes.count }
            offset = end + 4
            index += 1
        }
        return false
    }

    /// Width and height from IHDR, for a well-formed PNG.
    static func size(of bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard self.isPNG(bytes) else { return nil }
        return (Int(bytes.readBigEndianUInt32(at: 16)), Int(bytes.readBigEndianUInt32(at: 20)))
    }

    private static func blend(_ a: UInt8, _ b: UInt8, _ t: Int) -> UInt8 {
        UInt8((Int(a) * (255 - t) + Int(b) * t) / 255)
    }

    private static func appendChunk(_ type: StaticString, _ data: [UInt8], to png: inout [UInt8]) {
        png.appendBigEndian(UInt32(data.count))
        let start = png.count
        type.withUTF8Buffer { png.append(contentsOf: $0) }
        png.append(contentsOf: data)
        png.appendBigEndian(Checksums.crc32(png[start...]))
    }

    /// A zlib stream (RFC 1950) of stored deflate blocks (RFC 1951 §3.2.4).
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        out.reserveCapacity(data.count + data.count / 65535 * 5 + 11)
        var offset = 0
        repeat {
            let count = min(65535, data.count - offset)
            let final = offset + count == data.count
            out.append(final ? 1 : 0)
            out += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out.append(contentsOf: data[offset..<(offset + count)])
            offset += count
        } while offset < data.count
        out.appendBigEndian(Checksums.adler32(data))
        return out
    }
}

extension [UInt8] {
    mutating func appendBigEndian(_ value: UInt32) {
        self += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    func readBigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }
}
