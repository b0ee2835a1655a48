import NIOCore
import Testing

@testable import RateLimiting

@Suite("ConnectionSlot: the pool slot's state machine")
struct ConnectionSlotTests {
    final class FakeConnection {}
    typealias Slot = ConnectionSlot<FakeConnection, Int>

    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    @Test func connectsOnceThenWaitsForTheInterval() {
        var slot = Slot(reconnectInterval: .milliseconds(250))
        #expect(slot.mayConnect(now: start))
        slot.startConnecting(1, now: start)
        #expect(slot.pending == 1)
        #expect(!slot.mayConnect(now: start + .seconds(5)))
        slot.connectFailed()
        #expect(!slot.mayConnect(now: start + .milliseconds(249)))
        #expect(slot.mayConnect(now: start + .milliseconds(250)))
    }

    @Test func closedConnectionFreesTheSlot() {
        var slot = Slot(reconnectInterval: .milliseconds(250))
        let connection = FakeConnection()
        slot.startConnecting(1, now: start)
        let accepted = slot.connected(connection)
        #expect(accepted)
        #expect(slot.connection === connection)
        slot.closed(FakeConnection())
        #expect(slot.connection === connection)
        slot.closed(connection)
        #expect(slot.connection == nil)
        #expect(slot.mayConnect(now: start + .seconds(1)))
    }

    @Test func shutDownRefusesLateConnections() {
        var slot = Slot(reconnectInterval: .milliseconds(250))
        slot.startConnecting(1, now: start)
        let toClose = slot.shutDown()
        #expect(toClose == nil)
        let accepted = slot.connected(FakeConnection())
        #expect(!accepted)
        #expect(slot.isShutDown)
        #expect(!slot.mayConnect(now: start + .seconds(10)))
    }
}
