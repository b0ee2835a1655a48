import NIOCore
import NIOEmbedded
import Testing

@testable import UpstreamClient

/// `LoopFlushes`: a flush asked for during a batch of events happens once the batch is over, never sooner, never lost.
@Suite("Flushes at the end of a loop's batch")
struct LoopFlushesTests {
    /// Keeps its context so that a test can write and ask for a flush the way `UpstreamConnection` does.
    final class Sender: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        var context: ChannelHandlerContext!

        func handlerAdded(context: ChannelHandlerContext) { self.context = context }

        func send(_ text: String) {
            self.context.write(NIOAny(ByteBuffer(string: text)), promise: nil)
            LoopFlushes.flushLater(self.context)
        }
    }

    /// On its way to the socket, a flush of this channel sends on another channel: a flush asked for while flushing.
    final class FlushRelay: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        let next: Sender
        var relayed = false

        init(to next: Sender) { self.next = next }

        func flush(context: ChannelHandlerContext) {
            if !self.relayed {
                self.relayed = true
                self.next.send("relayed")
            }
            context.flush()
        }
    }

    static func channel(on loop: EmbeddedEventLoop) throws -> (EmbeddedChannel, Sender) {
        let sender = Sender()
        let channel = EmbeddedChannel(handler: sender, loop: loop)
        return (channel, sender)
    }

    static func sent(_ channel: EmbeddedChannel) throws -> [String] {
        var texts: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { texts.append(String(buffer: buffer)) }
        return texts
    }

    @Test("two channels' writes leave only when the loop's batch is over, each once and in order")
    func heldUntilTheBatchEnds() throws {
        let loop = EmbeddedEventLoop()
        let (first, firstSender) = try Self.channel(on: loop)
        let (second, secondSender) = try Self.channel(on: loop)
        firstSender.send("a")
        secondSender.send("b")
        firstSender.send("c")
        #expect(try Self.sent(first) == [])
        #expect(try Self.sent(second) == [])
        loop.run()
        #expect(try Self.sent(first) == ["a", "c"])
        #expect(try Self.sent(second) == ["b"])
        // The next batch starts empty: a new write waits for its own end.
        secondSender.send("d")
        #expect(try Self.sent(second) == [])
        loop.run()
        #expect(try Self.sent(second) == ["d"])
        _ = try first.finish()
        _ = try second.finish()
    }

    @Test("a channel closed before the batch's end: its flush does nothing, the others' still happen")
    func closedMeanwhile() throws {
        let loop = EmbeddedEventLoop()
        let (closing, closingSender) = try Self.channel(on: loop)
        let (open, openSender) = try Self.channel(on: loop)
        closingSender.send("lost")
        openSender.send("kept")
        _ = try closing.finish(acceptAlreadyClosed: true)
        loop.run()
        #expect(try Self.sent(open) == ["kept"])
        _ = try open.finish()
    }

    @Test("a flush asked for while the batch's flushes run is done too, not dropped with the list")
    func askedForWhileFlushing() throws {
        let loop = EmbeddedEventLoop()
        let (target, targetSender) = try Self.channel(on: loop)
        let (relaying, relayingSender) = try Self.channel(on: loop)
        try relaying.pipeline.syncOperations.addHandler(FlushRelay(to: targetSender), position: .first)
        relayingSender.send("first")
        loop.run()
        #expect(try Self.sent(relaying) == ["first"])
        #expect(try Self.sent(target) == ["relayed"])
        _ = try target.finish()
        _ = try relaying.finish()
    }

    @Test("one thread running two loops in turn: each loop flushes its own channels when its batch ends")
    func twoLoopsOnOneThread() throws {
        let loopA = EmbeddedEventLoop()
        let loopB = EmbeddedEventLoop()
        let (a, aSender) = try Self.channel(on: loopA)
        let (b, bSender) = try Self.channel(on: loopB)
        aSender.send("a1")
        bSender.send("b1")
        aSender.send("a2")
        loopB.run()
        #expect(try Self.sent(b) == ["b1"])
        #expect(try Self.sent(a) == [])
        loopA.run()
        #expect(try Self.sent(a) == ["a1", "a2"])
        _ = try a.finish()
        _ = try b.finish()
    }
}
