// swift-tools-version:6.2
import PackageDescription

/// The same upcoming features Hummingbird sets: every module writes down what it exports.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "storygate",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "storygate", targets: ["storygate"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-structured-headers.git", from: "1.7.0"),
    ],
    targets: [
        // MARK: C libraries, each wrapped once

        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),

        // MARK: Libraries

        /// Firebase ID tokens: JWT parsing, RS256 over OpenSSL, claim rules, certificate sets and their refresh, the verified-token cache.
        .target(
            name: "IDTokens",
            dependencies: [
                "COpenSSL",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        /// An async HTTP client on libcurl's multi interface, driven by one dedicated thread.
        .target(
            name: "CurlHTTP",
            dependencies: [
                "CCurl",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        /// A Google service account: its key file, and access tokens by the JWT bearer grant over CurlHTTP.
        .target(
            name: "GoogleAuth",
            dependencies: [
                "CurlHTTP",
                "IDTokens",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        /// Revoked sessions: the rule on a user's state, the per-user state cache with one lookup in flight per user,
        /// Identity Toolkit's `accounts:lookup` over CurlHTTP.
        .target(
            name: "Revocation",
            dependencies: [
                "GoogleAuth",
                "CurlHTTP",
                "IDTokens",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        /// Token buckets per (limit, user): the pure rules, an in-memory sharded store, a Redis store (RESP on SwiftNIO).
        .target(
            name: "RateLimiting",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        /// Typed OpenAI requests and responses over CurlHTTP, retries and error mapping; the `AIProvider` contract.
        .target(
            name: "OpenAI",
            dependencies: [
                "CurlHTTP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        /// The five AI functions (story, scenes, audio, avatar, illustration), their validation and prompts,
        /// moderation, the media stores (files, or an S3 bucket over CurlHTTP), MP3/PNG handling, and the offline provider.
        .target(
            name: "StoryFunctions",
            dependencies: [
                "OpenAI",
                "CurlHTTP",
                "IDTokens",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        /// `storygate mock-openai`: OpenAI's HTTP API shape served from the offline provider, with fault injection.
        .target(
            name: "MockOpenAI",
            dependencies: [
                "StoryFunctions",
                "OpenAI",
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        /// Generations that outlive their connection: idempotency records (the key, the fingerprint, the kept answer)
        /// and jobs, each in memory or shared through Redis (Streams and a consumer group for the jobs).
        .target(
            name: "Generations",
            dependencies: [
                "IDTokens",
                "RateLimiting",
                .product(name: "RawStructuredFieldValues", package: "swift-http-structured-headers"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        /// The gateway's configuration: the YAML file, the environment, their validation and the reference table.
        .target(
            name: "GatewayConfig",
            dependencies: [
                "IDTokens",
                "GoogleAuth",
                "Revocation",
                "RateLimiting",
                "StoryFunctions",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        /// HTTP/1.1 on the wire, with no `Channel` in it: request heads and bodies, upstream answer heads and bodies,
        /// heads written as bytes.
        .target(
            name: "HTTPWire",
            dependencies: [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        /// The upstream HTTP/1.1 client on callbacks: keep-alive connections, their per-event-loop pools, TLS.
        .target(
            name: "UpstreamClient",
            dependencies: [
                "HTTPWire",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        /// The HTTP edge: routes, authentication, errors to HTTP, the server; the composition of the other targets.
        .target(
            name: "Gateway",
            dependencies: [
                "GatewayConfig",
                "HTTPWire",
                "UpstreamClient",
                "Generations",
                "IDTokens",
                "GoogleAuth",
                "Revocation",
                "CurlHTTP",
                "RateLimiting",
                "OpenAI",
                "StoryFunctions",
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Executables

        .executableTarget(
            name: "storygate",
            dependencies: [
                "Gateway",
                "GatewayConfig",
                "CurlHTTP",
                "IDTokens",
                "MockOpenAI",
                "StoryFunctions",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        /// `swift run -c release StoryGateBenchmarks`: prints the numbers recorded in BENCHMARKS.md.
        .executableTarget(
            name: "StoryGateBenchmarks",
            dependencies: [
                "IDTokens", "CurlHTTP", "RateLimiting", "HTTPWire",
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Tests

        /// Shared test fixtures: keys, a token factory, a local x509 cert server.
        .target(
            name: "TestSupport",
            dependencies: [
                "IDTokens",
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "IDTokensTests",
            dependencies: ["IDTokens", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GoogleAuthTests",
            dependencies: ["GoogleAuth", "CurlHTTP", "IDTokens", "TestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RevocationTests",
            dependencies: [
                "Revocation", "GoogleAuth", "CurlHTTP", "IDTokens", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CurlHTTPTests",
            dependencies: ["CurlHTTP", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RateLimitingTests",
            dependencies: [
                "RateLimiting", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GenerationsTests",
            dependencies: [
                "Generations", "RateLimiting", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "UpstreamClientTests",
            dependencies: [
                "UpstreamClient", "HTTPWire", "IDTokens", "TestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "OpenAITests",
            dependencies: ["OpenAI", "CurlHTTP", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StoryFunctionsTests",
            dependencies: ["StoryFunctions", "OpenAI", "CurlHTTP", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MockOpenAITests",
            dependencies: ["MockOpenAI", "OpenAI", "StoryFunctions", "CurlHTTP", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "Gateway", "GatewayConfig", "Generations", "HTTPWire", "UpstreamClient", "IDTokens", "CurlHTTP", "TestSupport", "RateLimiting", "OpenAI", "StoryFunctions", "MockOpenAI",
                "GoogleAuth", "Revocation",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        /// The deployment files and the OpenAPI document: every YAML and JSON file parses, the files agree with each
        /// other, and the document agrees with the route table and the error codes.
        .testTarget(
            name: "DeployTests",
            dependencies: [
                "Gateway", "GatewayConfig", "StoryFunctions", "OpenAI", "TestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
