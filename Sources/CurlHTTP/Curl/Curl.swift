// The one file that imports libcurl: thin owners of the easy handle, the multi handle and a header
// list, the C callbacks, and the mapping of CURLcode to CurlError. Everything else in CurlHTTP uses these.
internal import CCurl

/// `curl_global_init`, once per process, before the first handle is made.
enum CurlGlobal {
    static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
}

// MARK: Results

/// A `CURLcode` that ended a transfer.
struct CurlResult: Sendable, Equatable {
    let rawValue: Int

    fileprivate init(_ code: CURLcode) {
        self.rawValue = Int(code.rawValue)
    }

    var isSuccess: Bool { self.rawValue == Int(CURLE_OK.rawValue) }

    /// The error for this result, or `nil` on success. `exceededLimit` says whether the write callback
    /// refused the body for being over the limit (libcurl then reports a write error).
    func error(exceededLimit: Bool, detail: String?) -> CurlError? {
        guard !self.isSuccess else { return nil }
        let code = CURLcode(rawValue: UInt32(self.rawValue))
        let kind: CurlError
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            kind = .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_SSL_CONNECT_ERROR:
            kind = .connectFailed
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            kind = .connectionReset
        case CURLE_FILESIZE_EXCEEDED:
            kind = .responseTooLarge
        case CURLE_WRITE_ERROR where exceededLimit:
            kind = .responseTooLarge
        case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING, CURLE_UNSUPPORTED_PROTOCOL:
            // UNSUPPORTED_PROTOCOL: URLs are checked before, so it means an HTTP/0.9 answer (not HTTP)
            // or a redirect to a scheme other than http/https.
            kind = .invalidResponse
        case CURLE_URL_MALFORMAT, CURLE_BAD_FUNCTION_ARGUMENT, CURLE_TOO_MANY_REDIRECTS:
            kind = .invalidRequest
        default:
            kind = .other
        }
        let text = detail.flatMap { $0.isEmpty ? nil : $0 } ?? String(cString: curl_easy_strerror(code))
        return kind.with(curlCode: self.rawValue, detail: text)
    }
}

// MARK: Easy handle

/// Where the C callbacks put what they receive; lives as long as its easy handle.
private final class ResponseSink {
    var accumulator: ResponseAccumulator

    init(maxBodyBytes: Int) {
        self.accumulator = ResponseAccumulator(maxBodyBytes: maxBodyBytes)
    }
}

private let bodyCallback: storygate_curl_data_callback = { data, size, count, context in
    let length = size * count
    guard let context, length > 0 else { return length }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    return sink.accumulator.appendBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private let headerCallback: storygate_curl_data_callback = { data, size, count, context in
    let length = size * count
    guard let context, let data, length > 0 else { return length }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    let line = UnsafeRawBufferPointer(start: data, count: length)
    sink.accumulator.appendHeaderLine(line)
    return length
}

/// One `CURL *` set up for one request, with its header list, error buffer and response sink.
///
/// Not thread-safe: made, used and released on the driver thread (`curl_easy_cleanup` in `deinit`,
/// which must come after the handle left the multi handle).
final class CurlEasy {
    /// The raw handle, also the key libcurl hands back in `CURLMSG_DONE` messages.
    let handle: UnsafeMutableRawPointer
    private let sink: ResponseSink
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var headerList: UnsafeMutablePointer<curl_slist>?

    /// An easy handle for `request`. Throws ``CurlError/invalidRequest`` or ``CurlError/other`` if libcurl refuses an option.
    init(request: CurlRequest, configuration: CurlClient.Configuration) throws(CurlError) {
        guard CurlGlobal.initialized, let handle = curl_easy_init() else {
            throw CurlError.other.with(curlCode: Int(CURLE_FAILED_INIT.rawValue), detail: "curl_easy_init failed")
        }
        self.handle = handle
        self.sink = ResponseSink(maxBodyBytes: request.maxResponseBytes)
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        self.errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        try self.configure(request: request, configuration: configuration)
    }

    deinit {
        curl_easy_cleanup(self.handle)
        curl_slist_free_all(self.headerList)
        self.errorBuffer.deallocate()
    }

    /// What the callbacks collected.
    var response: ResponseAccumulator { self.sink.accumulator }

    /// `CURLINFO_RESPONSE_CODE`: the last status received, 0 if none.
    var responseCode: Int {
        var code = 0
        _ = storygate_curl_easy_getinfo_long(self.handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// `CURLINFO_HTTP_VERSION` of the last response.
    var httpVersion: CurlHTTPVersion {
        var version = 0
        _ = storygate_curl_easy_getinfo_long(self.handle, CURLINFO_HTTP_VERSION, &version)
        switch version {
        case CURL_HTTP_VERSION_1_0: return .http1_0
        case CURL_HTTP_VERSION_1_1: return .http1_1
        case CURL_HTTP_VERSION_2_0: return .http2
        case CURL_HTTP_VERSION_3: return .http3
        default: return .unknown
        }
    }

    /// `CURLINFO_NUM_CONNECTS`: new connections this transfer had to open (0 when it reused one).
    var newConnections: Int {
        var count = 0
        _ = storygate_curl_easy_getinfo_long(self.handle, CURLINFO_NUM_CONNECTS, &count)
        return count
    }

    /// The text libcurl wrote to `CURLOPT_ERRORBUFFER` (never request headers), or `nil`.
    var errorText: String? {
        let text = String(cString: self.errorBuffer)
        return text.isEmpty ? nil : text
    }

    private func configure(request: CurlRequest, configuration: CurlClient.Configuration) throws(CurlError) {
        try self.set(CURLOPT_ERRORBUFFER, pointer: UnsafeRawPointer(self.errorBuffer))
        try self.set(CURLOPT_URL, string: request.url)
        try self.set(CURLOPT_PROTOCOLS_STR, string: "http,https")
        try self.set(CURLOPT_REDIR_PROTOCOLS_STR, string: "http,https")
        try self.set(CURLOPT_NOSIGNAL, 1)
        try self.set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        try self.set(CURLOPT_TCP_KEEPALIVE, 1)
        try self.set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(request.connectTimeout))
        try self.set(CURLOPT_TIMEOUT_MS, Self.milliseconds(request.timeout))
        try self.set(CURLOPT_MAXFILESIZE_LARGE, offset: request.maxResponseBytes)
        if request.maxRedirects > 0 {
            try self.set(CURLOPT_FOLLOWLOCATION, 1)
            try self.set(CURLOPT_MAXREDIRS, request.maxRedirects)
        }
        if request.url.lowercased().hasPrefix("https://") {
            // Prefer multiplexing on an HTTP/2 connection being set up over opening another one.
            try self.set(CURLOPT_PIPEWAIT, 1)
        }
        if let caBundlePath = configuration.caBundlePath {
            try self.set(CURLOPT_CAINFO, string: caBundlePath)
        }
        if configuration.automaticDecompression {
            try self.set(CURLOPT_ACCEPT_ENCODING, string: "")
        }
        if let userAgent = configuration.userAgent {
            try self.set(CURLOPT_USERAGENT, string: userAgent)
        }

        let context = UnsafeRawPointer(Unmanaged.passUnretained(self.sink).toOpaque())
        try self.check(storygate_curl_easy_setopt_data_callback(self.handle, CURLOPT_WRITEFUNCTION, bodyCallback))
        try self.set(CURLOPT_WRITEDATA, pointer: context)
        try self.check(storygate_curl_easy_setopt_data_callback(self.handle, CURLOPT_HEADERFUNCTION, headerCallback))
        try self.set(CURLOPT_HEADERDATA, pointer: context)

        try self.configureMethodAndBody(request)
        try self.configureHeaders(request)
        if let signing = request.awsSigV4 {
            // libcurl signs once the headers and body are set; the secret is copied, never logged.
            try self.set(CURLOPT_USERNAME, string: signing.accessKeyID)
            try self.set(CURLOPT_PASSWORD, string: signing.secretAccessKey)
            try self.set(CURLOPT_AWS_SIGV4, string: signing.provider)
        }
    }

    private func configureMethodAndBody(_ request: CurlRequest) throws(CurlError) {
        let method = request.method
        if method == "HEAD" {
            try self.set(CURLOPT_NOBODY, 1)
        } else if request.body != nil || method == "POST" || method == "PUT" || method == "PATCH" {
            let body = request.body ?? []
            try self.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: body.count)
            // COPYPOSTFIELDS copies the bytes; an empty body still needs a valid pointer.
            let result = body.isEmpty
                ? "".withCString { storygate_curl_easy_setopt_pointer(self.handle, CURLOPT_COPYPOSTFIELDS, $0) }
                : body.withUnsafeBytes { storygate_curl_easy_setopt_pointer(self.handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
            try self.check(result)
            if method != "POST" {
                try self.set(CURLOPT_CUSTOMREQUEST, string: method)
            }
        } else if method == "GET" {
            try self.set(CURLOPT_HTTPGET, 1)
        } else {
            try self.set(CURLOPT_CUSTOMREQUEST, string: method)
        }
    }

    private func configureHeaders(_ request: CurlRequest) throws(CurlError) {
        var lines: [String] = request.headers.map { header in
            // "Name:" would remove the header in curl's syntax; "Name;" sends it empty.
            header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"
        }
        let names = Set(request.headers.map { $0.name.lowercased() })
        // libcurl's SigV4 signs every line of this list, a removal too ("Expect:" would be signed, never sent): a
        // signed request keeps libcurl's own Expect (unsigned, for bodies over 1 MiB) and names its Content-Type.
        if !names.contains("expect"), request.awsSigV4 == nil {
            lines.append("Expect:")  // no 100-continue round trip for larger bodies
        }
        if request.body != nil, !names.contains("content-type"), request.awsSigV4 == nil {
            lines.append("Content-Type:")  // not curl's default application/x-www-form-urlencoded
        }
        for line in lines {
            guard let appended = curl_slist_append(self.headerList, line) else {
                throw CurlError.other.with(curlCode: Int(CURLE_OUT_OF_MEMORY.rawValue), detail: "curl_slist_append failed")
            }
            self.headerList = appended
        }
        try self.set(CURLOPT_HTTPHEADER, pointer: UnsafeRawPointer(self.headerList))
    }

    // MARK: setopt

    private func set(_ option: CURLoption, _ value: Int) throws(CurlError) {
        try self.check(storygate_curl_easy_setopt_long(self.handle, option, value))
    }

    private func set(_ option: CURLoption, offset value: Int) throws(CurlError) {
        try self.check(storygate_curl_easy_setopt_off_t(self.handle, option, curl_off_t(value)))
    }

    private func set(_ option: CURLoption, pointer value: UnsafeRawPointer?) throws(CurlError) {
        try self.check(storygate_curl_easy_setopt_pointer(self.handle, option, value))
    }

    private func set(_ option: CURLoption, string value: String) throws(CurlError) {
        // libcurl copies string options (all but POSTFIELDS) at once.
        try self.check(value.withCString { storygate_curl_easy_setopt_pointer(self.handle, option, $0) })
    }

    private func check(_ code: CURLcode) throws(CurlError) {
        guard code != CURLE_OK else { return }
        let kind: CurlError = code == CURLE_OUT_OF_MEMORY ? .other : .invalidRequest
        throw kind.with(curlCode: Int(code.rawValue), detail: String(cString: curl_easy_strerror(code)))
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return Int.max }
        // At least 1 ms: 0 would mean "no timeout" to libcurl.
        return max(1, Int(milliseconds.partialValue) + Int(attoseconds / 1_000_000_000_000_000))
    }
}

// MARK: Multi handle

/// The `CURLM *` of one running client: its connection cache, DNS cache and the transfers in flight.
///
/// Not thread-safe except for ``waker``: used only by the driver thread (`curl_multi_cleanup` in `deinit`,
/// after every easy handle was removed).
final class CurlMulti {
    private let handle: UnsafeMutableRawPointer
    private var closed = false

    /// A multi handle set up from `configuration` (multiplexing on, connection limits).
    init(configuration: CurlClient.Configuration) throws(CurlError) {
        guard CurlGlobal.initialized, let handle = curl_multi_init() else {
            throw CurlError.other.with(curlCode: Int(CURLE_FAILED_INIT.rawValue), detail: "curl_multi_init failed")
        }
        self.handle = handle
        _ = storygate_curl_multi_setopt_long(handle, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        _ = storygate_curl_multi_setopt_long(handle, CURLMOPT_MAXCONNECTS, configuration.maxCachedConnections)
        _ = storygate_curl_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
        _ = storygate_curl_multi_setopt_long(handle, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maxTotalConnections)
    }

    deinit {
        self.close()
    }

    /// `curl_multi_cleanup`, closing cached connections; call on the owning thread once every easy handle
    /// was removed and the ``waker`` dropped. Later calls (and `deinit`) do nothing.
    func close() {
        guard !self.closed else { return }
        self.closed = true
        curl_multi_cleanup(self.handle)
    }

    /// Wakes ``poll(timeoutMilliseconds:)`` from any thread.
    var waker: CurlWaker { CurlWaker(handle: self.handle) }

    /// Adds a transfer; `false` if libcurl refused it.
    func add(_ easy: CurlEasy) -> Bool {
        curl_multi_add_handle(self.handle, easy.handle) == CURLM_OK
    }

    /// Removes a transfer, finished or not (an unfinished one's connection is closed).
    func remove(_ easy: CurlEasy) {
        _ = curl_multi_remove_handle(self.handle, easy.handle)
    }

    /// `curl_multi_perform`: does whatever I/O is ready, without blocking.
    func perform() {
        var running: Int32 = 0
        _ = curl_multi_perform(self.handle, &running)
    }

    /// The next finished transfer (its raw easy handle and result), or `nil` when none is left.
    func nextCompleted() -> (handle: UnsafeMutableRawPointer, result: CurlResult)? {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(self.handle, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            return (easy, CurlResult(storygate_curl_msg_result(message)))
        }
        return nil
    }

    /// `curl_multi_poll`: blocks until a socket is ready, a libcurl timer is due, the waker is used,
    /// or `timeoutMilliseconds` pass.
    func poll(timeoutMilliseconds: Int32) {
        _ = curl_multi_poll(self.handle, nil, 0, timeoutMilliseconds, nil)
    }
}

/// Wakes a multi handle's `curl_multi_poll` (`curl_multi_wakeup` is the one multi call safe from any thread).
///
/// `@unchecked Sendable`: it only ever calls `curl_multi_wakeup`. Callers use it under the mailbox lock,
/// and the driver drops it under that lock before `curl_multi_cleanup`, so it never outlives the handle.
struct CurlWaker: @unchecked Sendable {
    fileprivate let handle: UnsafeMutableRawPointer

    func wakeup() {
        _ = curl_multi_wakeup(self.handle)
    }
}
