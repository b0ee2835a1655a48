import NIOCore

/// The state of one pool slot, apart from I/O: idle, connecting, connected or shut down, and when the last
/// connection attempt started, so attempts are at most one per `reconnectInterval`.
struct ConnectionSlot<Connection: AnyObject, Pending> {
    enum State {
        case idle
        case connecting(Pending)
        case connected(Connection)
        case shutDown
    }

    private(set) var state: State = .idle
    private(set) var lastAttempt: NIODeadline?
    let reconnectInterval: TimeAmount

    init(reconnectInterval: TimeAmount) {
        self.reconnectInterval = reconnectInterval
    }

    /// The connection, when connected.
    var connection: Connection? {
        if case .connected(let connection) = self.state { return connection }
        return nil
    }

    /// The pending attempt, when connecting.
    var pending: Pending? {
        if case .connecting(let pending) = self.state { return pending }
        return nil
    }

    /// True when idle and no attempt started within the last `reconnectInterval`.
    func mayConnect(now: NIODeadline) -> Bool {
        guard case .idle = self.state else { return false }
        guard let lastAttempt else { return true }
        return now - lastAttempt >= self.reconnectInterval
    }

    /// Records an attempt that starts now. Only valid when `mayConnect(now:)`.
    mutating func startConnecting(_ pending: Pending, now: NIODeadline) {
        precondition(self.mayConnect(now: now), "startConnecting when not allowed to connect")
        self.state = .connecting(pending)
        self.lastAttempt = now
    }

    /// The attempt succeeded. Returns false when the slot was shut down meanwhile: the caller closes `connection`.
    mutating func connected(_ connection: Connection) -> Bool {
        guard case .connecting = self.state else { return false }
        self.state = .connected(connection)
        return true
    }

    /// The attempt failed: idle again; the next attempt waits for `reconnectInterval` from this one's start.
    mutating func connectFailed() {
        if case .connecting = self.state { self.state = .idle }
    }

    /// `connection` closed or was found dead: idle again, if it is still this slot's connection.
    mutating func closed(_ connection: Connection) {
        if case .connected(let current) = self.state, current === connection { self.state = .idle }
    }

    /// Shuts the slot down for good; returns the connection to close, if any.
    mutating func shutDown() -> Connection? {
        let connection = self.connection
        self.state = .shutDown
        return connection
    }

    var isShutDown: Bool {
        if case .shutDown = self.state { return true }
        return false
    }
}
