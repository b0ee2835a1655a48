#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why ``refusingLoopbackPort()`` could not make a port.
public struct RefusingPortError: Error, CustomStringConvertible {
    public let description: String
}

/// A port on `127.0.0.1` where connections are refused: a socket bound to it and never listening, kept open for the
/// rest of the test process. A port merely freed and noted could be handed out again at once to another test's
/// server (they bind port 0 in parallel), and a connection to it would then succeed.
public func refusingLoopbackPort() throws -> Int {
    #if canImport(Glibc)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw RefusingPortError(description: "socket() failed") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else {
        close(fd)
        throw RefusingPortError(description: "bind() failed")
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
