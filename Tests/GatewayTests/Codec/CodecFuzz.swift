import Foundation
import TestSupport

/// The seeds, sizes and shards of the differential codec fuzz (``RequestCodecFuzzTests``, ``ResponseCodecFuzzTests``).
///
/// Every case (one to three messages back to back on one connection) has its own seed, worked out from the run's
/// seed, the shard and the case's index, so one case replays alone: `FUZZ_REPLAY=<case seed>` runs only it. The run's
/// seed is `FUZZ_SEED` (a fixed one by default), and `FUZZ_MESSAGES` the messages per direction (100,000 by default).
enum CodecFuzz {
    static let defaultSeed: UInt64 = 0x5EED_C0DE_C0DE_F022

    static let seed: UInt64 = ProcessInfo.processInfo.environment["FUZZ_SEED"].flatMap { UInt64($0) } ?? Self.defaultSeed

    /// Messages per direction, across all shards.
    static var messages: Int {
        ProcessInfo.processInfo.environment["FUZZ_MESSAGES"].flatMap { Int($0) } ?? 100_000
    }

    /// One case to run alone, by its seed.
    static var replay: UInt64? {
        ProcessInfo.processInfo.environment["FUZZ_REPLAY"].flatMap { UInt64($0) }
    }

    /// Shards run as separate test cases, so Swift Testing runs them in parallel.
    static let shards = Array(0..<8)

    /// The seed of case `index` of `shard` (a SplitMix64 step over the three, so neighbouring cases share nothing).
    static func caseSeed(shard: Int, index: Int) -> UInt64 {
        var mixer = SplitMix64(seed: Self.seed ^ (UInt64(shard) &* 0x9E37_79B9_7F4A_7C15))
        _ = mixer.next()
        var second = SplitMix64(seed: mixer.next() &+ UInt64(index))
        return second.next()
    }

    /// The cases of one shard: (case seed) until the shard has its share of messages (`messagesOf` says how many
    /// messages a case holds).
    static func run(shard: Int, messagesOf: (UInt64) -> Int, check: (UInt64) -> Void) -> (cases: Int, messages: Int) {
        if let replay = Self.replay {
            // Shard 0 alone runs the case; the other shards have nothing to do.
            guard shard == 0 else { return (0, 0) }
            check(replay)
            return (1, messagesOf(replay))
        }
        let share = (Self.messages + Self.shards.count - 1) / Self.shards.count
        var messages = 0
        var index = 0
        while messages < share {
            let seed = Self.caseSeed(shard: shard, index: index)
            messages += messagesOf(seed)
            check(seed)
            index += 1
        }
        return (index, messages)
    }

    /// Runs the cases of `shard` as ``run(shard:messagesOf:check:)`` does, on a thread of its own (seconds of CPU with
    /// no suspension, kept off the cooperative pool the other tests' gateways and servers run on). `check` counts what
    /// it saw in the tally and returns a failure's description; the first five failures are kept.
    static func runOffPool<Tally: Sendable>(
        shard: Int, messagesOf: @escaping @Sendable (UInt64) -> Int, tally: Tally,
        check: @escaping @Sendable (UInt64, inout Tally) -> String?
    ) async throws -> (run: (cases: Int, messages: Int), tally: Tally, failures: [String]) {
        try await offCooperativePool {
            var tally = tally
            var failures: [String] = []
            let run = Self.run(shard: shard, messagesOf: messagesOf) { seed in
                guard failures.count < 5, let failure = check(seed, &tally) else { return }
                failures.append(failure)
            }
            return (run, tally, failures)
        }
    }

    /// Bytes as a Swift string literal's contents: printable ASCII as is, `\r`, `\n`, `\t`, `\\`, `"`, and `\u{XX}`
    /// for every other byte.
    static func escaped(_ bytes: [UInt8], limit: Int = 4096) -> String {
        var text = ""
        for byte in bytes.prefix(limit) {
            switch byte {
            case UInt8(ascii: "\r"): text += "\\r"
            case UInt8(ascii: "\n"): text += "\\n"
            case UInt8(ascii: "\t"): text += "\\t"
            case UInt8(ascii: "\\"): text += "\\\\"
            case UInt8(ascii: "\""): text += "\\\""
            case 0x20..<0x7F: text.unicodeScalars.append(Unicode.Scalar(byte))
            default: text += "\\u{\(String(byte, radix: 16, uppercase: true))}"
            }
        }
        if bytes.count > limit { text += "… (\(bytes.count) bytes)" }
        return text
    }

    /// What a failure prints: how to replay it, and the bytes.
    static func describe(seed: UInt64, suite: String, bytes: [UInt8], _ problem: String) -> String {
        "\(problem)\n  replay: FUZZ_REPLAY=\(seed) swift test --skip-build --filter \(suite)\n  bytes: \"\(Self.escaped(bytes))\""
    }
}

/// `abc…z` repeated, for generated bodies (up to 20,000 bytes from any of the first 26).
let letters: [UInt8] = (0..<(20_100 + 26)).map { UInt8(ascii: "a") + UInt8($0 % 26) }

/// The bodies both generators write.
extension SplitMix64 {
    /// A body of `length` bytes; sometimes it starts with `smuggled`, a message that would be read as one if the
    /// framing were read differently.
    mutating func body(_ length: Int, smuggled: String) -> [UInt8] {
        if length >= 40, self.chance(30) {
            let smuggled = Array(smuggled.utf8)
            return smuggled + [UInt8](repeating: UInt8(ascii: "b"), count: length - smuggled.count)
        }
        // Letters from a random start: a copy (cheap for long bodies in a debug build), different from case to case.
        let start = self.below(26)
        return Array(letters[start..<(start + length)])
    }

    /// A chunked body: chunks, the last chunk, trailers; when not plain, sometimes broken, the last kind of broken
    /// chunk-size line being `oddSize`'s.
    mutating func chunkedBody(plain: Bool, oddSize: (String) -> String) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<self.below(4) {
            let size = 1 + self.below(self.chance(95) ? 20 : 5000)
            var sizeText = String(size, radix: 16, uppercase: self.chance(50))
            var data = [UInt8](repeating: UInt8(ascii: "c"), count: size)
            var afterData: [UInt8] = [0x0D, 0x0A]
            if !plain, self.chance(25) {
                switch self.below(12) {
                case 0: sizeText += ";ext=1"
                case 1: sizeText += ";a=\"q s\""
                case 2: sizeText = "0" + sizeText
                case 3: sizeText = "g"
                case 4: sizeText = "-" + sizeText
                case 5: sizeText = " " + sizeText
                case 6: sizeText += " "
                case 7: sizeText = "fffffffffffffffff"
                case 8: afterData = []
                case 9: afterData = [0x0A]
                case 10: data.removeLast()
                default: sizeText = oddSize(sizeText)
                }
            }
            bytes += Array(sizeText.utf8) + [0x0D, 0x0A] + data + afterData
        }
        bytes += Array("0".utf8)
        if !plain, self.chance(15) { bytes += Array(self.pick([";e", "0", " ", ";x=\"a\u{01}\""]).utf8) }
        bytes += [0x0D, 0x0A]
        if !plain, self.chance(20) {
            bytes += Array(self.pick(["X-T: v\r\n", "X-T: a\r\n b\r\n", "Bad Name: v\r\n", "X-T: v\n", "Content-Length: 5\r\n"]).utf8)
        }
        bytes += self.chance(plain ? 0 : 4) ? [0x0A] : [0x0D, 0x0A]
        return bytes
    }
}
