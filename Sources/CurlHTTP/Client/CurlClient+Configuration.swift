extension CurlClient {
    /// Settings for one ``CurlClient``; every key has a default.
    public struct Configuration: Sendable {
        /// `CURLMOPT_MAXCONNECTS`: idle connections kept for reuse. Default 64.
        public var maxCachedConnections: Int
        /// `CURLMOPT_MAX_HOST_CONNECTIONS`: open connections per host; more transfers wait. Default 0 (no limit).
        public var maxConnectionsPerHost: Int
        /// `CURLMOPT_MAX_TOTAL_CONNECTIONS`: open connections overall. Default 0 (no limit).
        public var maxTotalConnections: Int
        /// `CURLOPT_CAINFO`: a PEM bundle to trust instead of the system CA store. Default `nil` (system store).
        public var caBundlePath: String?
        /// `CURLOPT_ACCEPT_ENCODING ""`: ask for and decode gzip, deflate, br, zstd. Default `false`.
        public var automaticDecompression: Bool
        /// `CURLOPT_USERAGENT`. Default `nil` (no `User-Agent` header unless a request sets one).
        public var userAgent: String?

        /// A configuration; every parameter has the default documented on its property.
        public init(
            maxCachedConnections: Int = 64,
            maxConnectionsPerHost: Int = 0,
            maxTotalConnections: Int = 0,
            caBundlePath: String? = nil,
            automaticDecompression: Bool = false,
            userAgent: String? = nil
        ) {
            self.maxCachedConnections = maxCachedConnections
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxTotalConnections = maxTotalConnections
            self.caBundlePath = caBundlePath
            self.automaticDecompression = automaticDecompression
            self.userAgent = userAgent
        }
    }
}
