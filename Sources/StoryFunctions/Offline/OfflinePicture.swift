/// The offline provider's images: a flat picture-book landscape at the requested size — a sky fading toward the
/// horizon, a sun or moon, a hill and the ground — with colours and placement drawn from a seed.
///
/// Every row is a few runs of one colour, written by ``RunLengthDeflate``: a 1024×1024 picture is some tens of
/// kilobytes and costs time per run, not per pixel.
struct OfflinePicture {
    typealias Colour = (red: UInt8, green: UInt8, blue: UInt8)

    /// A size as the image APIs write it (`1024x1536`); `auto` and anything unreadable are 1024×1024.
    static func size(_ text: String) -> (width: Int, height: Int) {
        let parts = text.split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), (1...4096).contains(width),
              (1...4096).contains(height) else { return (1024, 1024) }
        return (width, height)
    }

    let width: Int
    let height: Int
    private let skyTop: Colour
    private let skyHorizon: Colour
    private let sun: Colour
    private let hill: Colour
    private let ground: Colour
    /// The sun's centre and radius, the hill's centre (below the horizon) and radius, the horizon's row.
    private let sunX: Int, sunY: Int, sunRadius: Int
    private let hillX: Int, hillY: Int, hillRadius: Int
    private let horizon: Int

    init(width: Int, height: Int, seed: UInt64) {
        precondition((1...4096).contains(width) && (1...4096).contains(height))
        self.width = width
        self.height = height
        var random = SeededRandom(seed: seed)
        let palettes: [(Colour, Colour, Colour, Colour, Colour)] = [
            ((70, 130, 200), (250, 210, 160), (255, 236, 150), (110, 170, 90), (80, 130, 70)),  // a summer day
            ((25, 30, 80), (110, 90, 160), (245, 240, 215), (60, 80, 120), (40, 55, 90)),  // a moonlit night
            ((240, 140, 90), (255, 215, 150), (255, 245, 200), (170, 110, 80), (120, 80, 60)),  // a sunset
            ((150, 200, 235), (225, 240, 250), (255, 250, 220), (140, 190, 160), (100, 150, 120)),  // a spring morning
        ]
        let palette = palettes.randomElement(using: &random)!
        (self.skyTop, self.skyHorizon, self.sun, self.hill, self.ground) = palette
        let short = min(width, height)
        self.horizon = height * Int.random(in: 58...70, using: &random) / 100
        self.sunRadius = max(1, short * Int.random(in: 6...11, using: &random) / 100)
        self.sunX = width * Int.random(in: 15...85, using: &random) / 100
        self.sunY = self.horizon * Int.random(in: 20...55, using: &random) / 100
        self.hillRadius = max(1, width * Int.random(in: 35...60, using: &random) / 100)
        self.hillX = width * Int.random(in: 10...90, using: &random) / 100
        self.hillY = self.horizon + self.hillRadius * Int.random(in: 60...85, using: &random) / 100
    }

    /// The picture as a PNG (8-bit RGB).
    func png() -> [UInt8] {
        var deflate = RunLengthDeflate()
        for y in 0..<self.height {
            deflate.literal(0)  // filter type None
            for run in self.runs(row: y) { deflate.run(run.colour.red, run.colour.green, run.colour.blue, count: run.count) }
        }
        return PNG.rgb(width: self.width, height: self.height, zlib: deflate.finish())
    }

    /// Row `y` as runs of one colour, left to right, covering the width.
    func runs(row y: Int) -> [(colour: Colour, count: Int)] {
        // Shapes in painting order, the later over the earlier: [start, end) and a colour.
        var shapes: [(start: Int, end: Int, colour: Colour)] = []
        if y < self.horizon {
            shapes.append((0, self.width, Self.blend(self.skyTop, self.skyHorizon, y, self.horizon)))
            if let span = Self.chord(centreX: self.sunX, centreY: self.sunY, radius: self.sunRadius, y: y) {
                shapes.append((span.start, span.end, self.sun))
            }
        } else {
            shapes.append((0, self.width, Self.blend(self.hill, self.ground, y - self.horizon, self.height - self.horizon)))
        }
        if let span = Self.chord(centreX: self.hillX, centreY: self.hillY, radius: self.hillRadius, y: y), y < self.horizon {
            shapes.append((span.start, span.end, self.hill))
        }
        var cuts = Set([0, self.width])
        for shape in shapes {
            cuts.insert(max(0, min(self.width, shape.start)))
            cuts.insert(max(0, min(self.width, shape.end)))
        }
        let edges = cuts.sorted()
        var runs: [(colour: Colour, count: Int)] = []
        for (start, end) in zip(edges, edges.dropFirst()) where end > start {
            let colour = shapes.last { $0.start <= start && start < $0.end }!.colour
            if let last = runs.last, last.colour == colour {
                runs[runs.count - 1].count += end - start
            } else {
                runs.append((colour, end - start))
            }
        }
        return runs
    }

    /// The columns a disc covers on row `y`, nil when it misses the row.
    private static func chord(centreX: Int, centreY: Int, radius: Int, y: Int) -> (start: Int, end: Int)? {
        let dy = y - centreY
        guard abs(dy) < radius else { return nil }
        let half = Int(Double(radius * radius - dy * dy).squareRoot())
        return (centreX - half, centreX + half + 1)
    }

    /// From `from` at step 0 to `to` at step `steps`.
    private static func blend(_ from: Colour, _ to: Colour, _ step: Int, _ steps: Int) -> Colour {
        guard steps > 0 else { return from }
        let t = min(steps, max(0, step))
        let mix = { (a: UInt8, b: UInt8) in UInt8((Int(a) * (steps - t) + Int(b) * t) / steps) }
        return (mix(from.red, to.red), mix(from.green, to.green), mix(from.blue, to.blue))
    }
}
