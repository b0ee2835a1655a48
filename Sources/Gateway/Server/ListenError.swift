import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// The listener could not be opened (the port is taken, the address is not this machine's, a low port without
/// the privilege): a start-up problem of the configuration, reported in one line naming the address.
public struct ListenError: Error, Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int
    /// What went wrong, in lower case: `address already in use`.
    public let reason: String
    /// The settings that choose this address (`PORT or --port`, `ADMIN_PORT`), named so the operator knows what to change.
    public let setting: String?

    public init(host: String, port: Int, reason: String, setting: String? = nil) {
        self.host = host
        self.port = port
        self.reason = reason
        self.setting = setting
    }

    /// From the error opening the listener threw; nil for an error that is not about opening it.
    init?(host: String, port: Int, setting: String? = nil, error: any Error) {
        let reason: String
        switch error {
        case let error as IOError:
            let text = String(cString: strerror(error.errnoCode))
            reason = text.prefix(1).lowercased() + text.dropFirst()
        case is SocketAddressError:
            reason = "the host name does not resolve to an address"
        default:
            return nil
        }
        self.init(host: host, port: port, reason: reason, setting: setting)
    }

    /// `cannot listen on 127.0.0.1:8080: address already in use; set PORT (listen.port in the file, --port) to a free port` (an IPv6
    /// address in brackets).
    public var description: String {
        let address = self.host.contains(":") ? "[\(self.host)]:\(self.port)" : "\(self.host):\(self.port)"
        let hint = self.setting.map { "; set \($0)" } ?? ""
        return "cannot listen on \(address): \(self.reason)\(hint)"
    }
}
