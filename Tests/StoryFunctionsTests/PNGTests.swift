import Foundation
@testable import StoryFunctions
import Testing

/// The offline PNGs are real PNGs: signature, chunk CRCs, a zlib stream whose stored blocks and Adler-32 check out.
@Suite struct PNGTests {
    struct Chunk {
        var type: String
        var data: [UInt8]
        var crc: UInt32
    }

    static func chunks(_ png: [UInt8]) throws -> [Chunk] {
        var result: [Chunk] = []
        var offset = 8
        while offset < png.count {
            let length = Int(png.readBigEndianUInt32(at: offset))
            let type = String(decoding: png[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let data = Array(png[(offset + 8)..<(offset + 8 + length)])
            result.append(Chunk(type: type, data: data, crc: png.readBigEndianUInt32(at: offset + 8 + length)))
            offset += 12 + length
        }
        return result
    }

    /// Inflates a zlib stream made only of stored blocks, checking its header and Adler-32.
    static func inflateStored(_ stream: [UInt8]) throws -> [UInt8] {
        #expect((UInt16(stream[0]) << 8 | UInt16(stream[1])) % 31 == 0)  // FCHECK
        #expect(stream[0] & 0x0F == 8)  // deflate
        var out: [UInt8] = []
        var offset = 2
        var final = false
        while !final {
            final = stream[offset] & 1 == 1
            #expect(stream[offset] >> 1 & 3 == 0)  // stored
            let length = Int(stream[offset + 1]) | Int(stream[offset + 2]) << 8
            let complement = Int(stream[offset + 3]) | Int(stream[offset + 4]) << 8
            #expect(length ^ complement == 0xFFFF)
            out += stream[(offset + 5)..<(offset + 5 + length)]
            offset += 5 + length
        }
        #expect(Array(stream[offset...]).readBigEndianUInt32(at: 0) == Checksums.adler32(out))
        #expect(offset + 4 == stream.count)
        return out
    }

    @Test(arguments: [(1, 1), (16, 9), (256, 256), (300, 200)])
    func imageIsAValidPNG(width: Int, height: Int) throws {
        let png = PNG.image(width: width, height: height, seed: 7)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(PNG.isPNG(png))
        let chunks = try Self.chunks(png)
        #expect(chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
        for chunk in chunks {
            #expect(Checksums.crc32(Array(chunk.type.utf8) + chunk.data) == chunk.crc)
        }
        let header = chunks[0].data
        #expect(header.readBigEndianUInt32(at: 0) == UInt32(width))
        #expect(header.readBigEndianUInt32(at: 4) == UInt32(height))
        #expect(Array(header[8...]) == [8, 2, 0, 0, 0])
        let raw = try Self.inflateStored(chunks[1].data)
        #expect(raw.count == height * (1 + width * 3))
        #expect(stride(from: 0, to: raw.count, by: 1 + width * 3).allSatisfy { raw[$0] == 0 })
    }

    @Test func knownChecksums() {
        #expect(Checksums.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Checksums.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(Checksums.adler32([UInt8](repeating: 0xFF, count: 100_000)) == Self.slowAdler([UInt8](repeating: 0xFF, count: 100_000)))
    }

    static func slowAdler(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return b << 16 | a
    }

    @Test func seedsDifferAndRepeat() {
        #expect(PNG.image(width: 8, height: 8, seed: 1) == PNG.image(width: 8, height: 8, seed: 1))
        #expect(PNG.image(width: 8, height: 8, seed: 1) != PNG.image(width: 8, height: 8, seed: 2))
    }

    @Test func brokenPNGsAreRejected() {
        let png = PNG.image(width: 8, height: 8, seed: 3)
        var badCRC = png
        badCRC[20] ^= 0x01  // inside IHDR
        var noEnd = png
        noEnd.removeLast(12)
        var trailing = png
        trailing.append(0)
        for bytes in [badCRC, noEnd, trailing, Array(png.prefix(40)), Array("GIF89a".utf8), []] {
            #expect(!PNG.isPNG(bytes))
        }
    }
}

/// A cross-check with a real zlib: Python's `zlib.decompress` and `zlib.crc32` read the offline PNG
/// (skipped where there is no python3).
@Suite struct PNGZlibCrossCheckTests {
    static let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: python != nil)) func pythonZlibDecodesTheImage() throws {
        let png = PNG.image(width: 64, height: 48, seed: 99)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("png-\(UUID().uuidString).png")
        try Data(png).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import struct, sys, zlib
            data = open(sys.argv[1], 'rb').read()
            assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
            pos, idat = 8, b''
            while pos < len(data):
                n, = struct.unpack('>I', data[pos:pos+4]); kind = data[pos+4:pos+8]; body = data[pos+8:pos+8+n]
                crc, = struct.unpack('>I', data[pos+8+n:pos+12+n])
                assert zlib.crc32(kind + body) & 0xffffffff == crc, kind
                if kind == b'IHDR': w, h = struct.unpack('>II', body[:8])
                if kind == b'IDAT': idat += body
                pos += 12 + n
            raw = zlib.decompress(idat)
            assert len(raw) == h * (1 + 3 * w)
            print(w, h, len(raw))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python!)
        process.arguments = ["-c", script, file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == "64 48 9264")
    }
}
