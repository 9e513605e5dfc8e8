// swift-tools-version:6.2
import PackageDescription

/// Settings applied to every Swift target of this package: Swift 6 mode with strict concurrency,
/// the upcoming features the style guide asks for, and warnings as errors (SE-0443; only our own
/// targets carry these settings, so dependencies' warnings stay warnings).
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .treatAllWarnings(as: .error),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "PushMock",
    platforms: [.macOS(.v15)],
    products: [
        // What users import: the test harness, the sender, the toolkit of checks, replay and
        // the control-API client. Everything else is internal to the package (`package` access).
        .executable(name: "pushmock", targets: ["pushmock"]),
        .library(name: "PushMockTesting", targets: ["PushMockTesting"]),
        .library(name: "PushMockControl", targets: ["PushMockControl"]),
        .library(name: "PushMockToolkit", targets: ["PushMockToolkit"]),
        .library(name: "PushMockSender", targets: ["PushMockSender"]),
        .library(name: "PushMockReplay", targets: ["PushMockReplay"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // libnghttp2 from the system (Debian: libnghttp2-dev). HTTP/2 framing and HPACK.
        .systemLibrary(
            name: "CNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]
        ),

        // zlib from the system (Debian: zlib1g-dev): gzip/deflate request bodies and gzip answers
        // of the Expo push API, and the Expo sender's gzip bodies. A three-function wrapper is
        // all that is needed, so no package dependency.
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),

        // Allocation-light JSON: a single-pass validating scanner, a compactor, a writer and a
        // small ordered value type for the places that need to look inside a payload.
        .target(
            name: "PushMockJSON",
            swiftSettings: swiftSettings
        ),
        // Child processes for the test suites (posix_spawn; Foundation's Process.run crashes
        // now and then on Linux, swift-corelibs-foundation PR #5472). Not a product.
        .target(
            name: "PushMockTestSupport",
            dependencies: ["CPushMockTestSupport"],
            swiftSettings: swiftSettings
        ),
        // pipe2 and posix_spawn_file_actions_addclosefrom_np (GNU extensions) for it.
        .target(name: "CPushMockTestSupport"),
        .testTarget(
            name: "PushMockJSONTests",
            dependencies: ["PushMockJSON", "PushMockTestSupport"],
            swiftSettings: swiftSettings
        ),

        // Wire values, validation rules and error catalogues of APNs and FCM. No NIO.
        .target(
            name: "PushMockCore",
            dependencies: ["PushMockJSON", "CZlib"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockCoreTests",
            dependencies: ["PushMockCore", "PushMockJSON"],
            swiftSettings: swiftSettings
        ),

        // JWT (ES256 / RS256), provider-token verification, APNs certificate topics, local PKI.
        .target(
            name: "PushMockAuth",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockAuthTests",
            dependencies: [
                "PushMockTestSupport",
                "PushMockAuth",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // Bytes <-> messages: the libnghttp2 session owner with its NIO handlers (server and client
        // mode), the HTTP/1.1 handler, and HTTP/2-preface sniffing for clients without ALPN.
        .target(
            name: "PushMockTransport",
            dependencies: [
                "CNGHTTP2",
                "PushMockCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockTransportTests",
            dependencies: [
                "PushMockTestSupport",
                "PushMockTransport",
                "PushMockCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),

        // Exchange records: in-memory store and the JSON Lines journal.
        .target(
            name: "PushMockRecording",
            dependencies: ["PushMockCore", "PushMockJSON"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockRecordingTests",
            dependencies: ["PushMockRecording", "PushMockJSON", "PushMockCore"],
            swiftSettings: swiftSettings
        ),

        // Delivery simulation and fault injection: fault rules (match, trigger, action), device
        // inboxes with APNs/FCM storage semantics, lint findings. No NIO.
        .target(
            name: "PushMockSimulation",
            dependencies: [
                "PushMockCore", "PushMockJSON",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockSimulationTests",
            dependencies: ["PushMockSimulation", "PushMockCore", "PushMockJSON", "PushMockTestSupport"],
            swiftSettings: swiftSettings
        ),

        // Queries over recordings (`RecordingQuery`, `PayloadPredicate`, waiting for matches):
        // what the gateway's control API needs, without the toolkit's assertions and checks.
        .target(
            name: "PushMockQuery",
            dependencies: ["PushMockRecording", "PushMockCore", "PushMockJSON"],
            swiftSettings: swiftSettings
        ),

        // Webhooks: events POSTed to configured URLs over HTTP/1.1 (TLS optional), HMAC-signed,
        // retried with exponential backoff from a bounded queue, every attempt kept. Knows
        // nothing about recordings: the gateway (recordings) and engagement events feed it.
        .target(
            name: "PushMockWebhooks",
            dependencies: [
                "PushMockCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),

        // The gateway: listeners, TLS/ALPN, routing, APNs service, registries, control API.
        .target(
            name: "PushMockGateway",
            dependencies: [
                "PushMockWebhooks",
                "PushMockQuery",
                "PushMockCore",
                "PushMockJSON",
                "PushMockSimulation",
                "PushMockAuth",
                "PushMockTransport",
                "PushMockRecording",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // The inbox's HTML, CSS and JavaScript: compiled into InboxAssets.swift by
            // scripts/generate-inbox-assets, not built or bundled as resources.
            exclude: ["Inbox/Web"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockGatewayTests",
            dependencies: [
                "PushMockTestSupport",
                "PushMockWebhooks",
                "PushMockToolkit",
                "PushMockControl",
                "PushMockGateway",
                "PushMockTesting",
                "PushMockAuth",
                "PushMockCore",
                "PushMockRecording",
                "PushMockTransport",
                "PushMockJSON",
                "PushMockSimulation",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),

        // The control API's check endpoints (`POST /_pushmock/expectations`,
        // `/_pushmock/checks/links|policy`): toolkit checks plugged into the gateway's control API
        // through its extension point, so the gateway itself needs no assertions or policies.
        .target(
            name: "PushMockCheckAPI",
            dependencies: ["PushMockGateway", "PushMockToolkit", "PushMockQuery", "PushMockRecording", "PushMockCore", "PushMockJSON"],
            swiftSettings: swiftSettings
        ),

        // Shipped test-support library: an in-process gateway and a client wired to it.
        .target(
            name: "PushMockTesting",
            dependencies: [
                "PushMockCheckAPI",
                "PushMockToolkit",
                "PushMockSender",
                "PushMockJSON",
                "PushMockControl",
                "PushMockGateway",
                "PushMockTransport",
                "PushMockAuth",
                "PushMockCore",
                "PushMockRecording",
                "PushMockSimulation",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),

        // What tests do with recordings: queries, assertions, deep links, policy checks, golden
        // files. Pure logic, no networking.
        .target(
            name: "PushMockToolkit",
            dependencies: ["PushMockQuery", "PushMockRecording", "PushMockJSON", "PushMockCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockToolkitTests",
            dependencies: [
                "PushMockTestSupport", "PushMockToolkit", "PushMockRecording", "PushMockJSON", "PushMockCore",
            ],
            swiftSettings: swiftSettings
        ),

        // A client for a running gateway's control API (the CLI's clock, device, token and
        // fault commands; tests in other processes).
        .target(
            name: "PushMockControl",
            dependencies: [
                "PushMockCore",
                "PushMockTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),

        // The sender: APNs and FCM clients over the libnghttp2 client transport, typed outcomes,
        // retries, payload builders and templates, recipient files and delivery summaries.
        .target(
            name: "PushMockSender",
            dependencies: [
                "PushMockCore",
                "PushMockJSON",
                "PushMockAuth",
                "PushMockTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockSenderTests",
            dependencies: [
                "PushMockTestSupport",
                "PushMockSender",
                "PushMockTesting",
                "PushMockToolkit",
                "PushMockGateway",
                "PushMockSimulation",
                "PushMockRecording",
                "PushMockAuth",
                "PushMockCore",
                "PushMockJSON",
                "PushMockTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),

        // Replay: send a journal's requests again with fresh credentials (through the sender) and
        // compare the outcomes with the recorded ones.
        .target(
            name: "PushMockReplay",
            dependencies: ["PushMockSender", "PushMockRecording", "PushMockToolkit", "PushMockCore", "PushMockJSON"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockReplayTests",
            dependencies: [
                "PushMockReplay",
                "PushMockSender",
                "PushMockTesting",
                "PushMockGateway",
                "PushMockRecording",
                "PushMockToolkit",
                "PushMockAuth",
                "PushMockCore",
                "PushMockJSON",
                "PushMockTransport",
                "PushMockSimulation",
            ],
            swiftSettings: swiftSettings
        ),

        // The thin command-line executable.
        .executableTarget(
            name: "pushmock",
            dependencies: [
                "PushMockCheckAPI",
                "PushMockToolkit",
                "PushMockGateway",
                "PushMockControl",
                "PushMockSimulation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                "PushMockAuth",
                "PushMockCore",
                "PushMockJSON",
                "PushMockRecording",
                "PushMockSender",
                "PushMockReplay",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockCLITests",
            dependencies: [
                "PushMockTestSupport",
                "PushMockAuth",
                "PushMockSender",
                "PushMockToolkit",
                "pushmock",
                "PushMockGateway",
                "PushMockControl",
                "PushMockCore",
                "PushMockJSON",
                "PushMockRecording",
            ],
            swiftSettings: swiftSettings
        ),

        // Worked examples, one per seed (Examples/<Name>/)
        .target(
            name: "WhistlExample",
            dependencies: ["PushMockSender", "PushMockCore", "PushMockJSON"],
            path: "Examples/Whistl/Sources",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WhistlExampleTests",
            dependencies: ["WhistlExample", "PushMockTesting", "PushMockToolkit", "PushMockControl"],
            path: "Examples/Whistl/Tests",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PushDesignTemplateExample",
            dependencies: ["PushMockSender", "PushMockCore", "PushMockJSON"],
            path: "Examples/PushDesignTemplate/Sources",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushDesignTemplateExampleTests",
            dependencies: ["PushDesignTemplateExample", "PushMockTesting", "PushMockToolkit", "PushMockControl", "PushMockTestSupport"],
            path: "Examples/PushDesignTemplate/Tests",
            swiftSettings: swiftSettings
        ),
        // Loop Health: Knock-style workflows sent to Expo push tokens. Its test target also holds
        // the starter tests to copy (Swift Testing and XCTest, Tests/StarterTests).
        .target(
            name: "LoopHealthExample",
            dependencies: ["PushMockSender", "PushMockJSON"],
            path: "Examples/LoopHealth/Sources",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LoopHealthExampleTests",
            dependencies: ["LoopHealthExample", "PushMockTesting", "PushMockToolkit", "PushMockControl"],
            path: "Examples/LoopHealth/Tests",
            swiftSettings: swiftSettings
        ),
        // FODMAP reminders: expo-notifications, local on the device plus Expo push.
        .target(
            name: "FODMAPRemindersExample",
            dependencies: ["PushMockSender", "PushMockJSON"],
            path: "Examples/FODMAPReminders/Sources",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FODMAPRemindersExampleTests",
            dependencies: ["FODMAPRemindersExample", "PushMockTesting", "PushMockToolkit", "PushMockControl"],
            path: "Examples/FODMAPReminders/Tests",
            swiftSettings: swiftSettings
        ),
        // Critical Moments: on-device scheduling from a config, pushed config and events.
        .target(
            name: "CriticalMomentsExample",
            dependencies: ["PushMockSender", "PushMockCore", "PushMockJSON"],
            path: "Examples/CriticalMoments/Sources",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CriticalMomentsExampleTests",
            dependencies: ["CriticalMomentsExample", "PushMockTesting", "PushMockToolkit", "PushMockControl"],
            path: "Examples/CriticalMoments/Tests",
            swiftSettings: swiftSettings
        ),
    ]
)

// libFuzzer targets (Tests/Fuzz/PushMockFuzz): only when PUSHMOCK_FUZZ=1, which `scripts/fuzz`
// sets together with `-sanitize=fuzzer,address` and its own scratch path. A plain `swift build`
// or `swift test` never sees this target (it cannot link without the fuzzer runtime).
if Context.environment["PUSHMOCK_FUZZ"] == "1" {
    package.targets.append(.systemLibrary(name: "CLibFuzzer", path: "Tests/Fuzz/CLibFuzzer"))
    package.targets.append(
        .executableTarget(
            name: "PushMockFuzz",
            dependencies: [
                "CLibFuzzer",
                "PushMockGateway",
                "PushMockTransport",
                "PushMockRecording",
                "PushMockAuth",
                "PushMockCore",
                "PushMockJSON",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/Fuzz/PushMockFuzz",
            swiftSettings: swiftSettings
        )
    )
}

// ThreadSanitizer builds (`scripts/tsan`, its own scratch path) compile only the test targets
// they run: PUSHMOCK_TEST_TARGETS names them, comma-separated. The other test targets, the
// worked examples and the `pushmock` executable are left out (no kept test target depends on
// them; the build took 571 s instead of 868). Unset, as in every other build: everything.
if let keptTests = Context.environment["PUSHMOCK_TEST_TARGETS"].map({ Set($0.split(separator: ",").map(String.init)) }) {
    let leftOut = Set(
        package.targets.filter { target in
            switch target.type {
            case .test: !keptTests.contains(target.name)
            case .executable: true
            default: target.name.hasSuffix("Example")
            }
        }.map(\.name)
    )
    package.targets.removeAll { leftOut.contains($0.name) }
    package.products.removeAll { $0 is Product.Executable }
}
