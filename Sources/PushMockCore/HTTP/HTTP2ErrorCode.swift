/// An HTTP/2 error code (RFC 9113 §7), as carried by RST_STREAM and GOAWAY frames.
public struct HTTP2ErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// The 32-bit code on the wire.
    public let networkCode: UInt32

    public init(networkCode: UInt32) { self.networkCode = networkCode }

    public static let noError = Self(networkCode: 0x0)
    public static let protocolError = Self(networkCode: 0x1)
    public static let internalError = Self(networkCode: 0x2)
    public static let flowControlError = Self(networkCode: 0x3)
    public static let settingsTimeout = Self(networkCode: 0x4)
    public static let streamClosed = Self(networkCode: 0x5)
    public static let frameSizeError = Self(networkCode: 0x6)
    public static let refusedStream = Self(networkCode: 0x7)
    public static let cancel = Self(networkCode: 0x8)
    public static let compressionError = Self(networkCode: 0x9)
    public static let connectError = Self(networkCode: 0xa)
    public static let enhanceYourCalm = Self(networkCode: 0xb)
    public static let inadequateSecurity = Self(networkCode: 0xc)
    public static let http11Required = Self(networkCode: 0xd)

    /// Every code RFC 9113 defines.
    public static let all: [HTTP2ErrorCode] = (0...0xd).map { Self(networkCode: UInt32($0)) }

    private static let names = [
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
        "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR",
        "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
    ]

    /// The RFC name, e.g. `REFUSED_STREAM`.
    public var name: String {
        networkCode < UInt32(Self.names.count) ? Self.names[Int(networkCode)] : "0x\(String(networkCode, radix: 16))"
    }

    /// Parses an RFC name (`REFUSED_STREAM`, case-insensitive) or a number.
    public init?(name: String) {
        if let index = Self.names.firstIndex(of: name.uppercased()) {
            self.networkCode = UInt32(index)
        } else if let number = UInt32(name) {
            self.networkCode = number
        } else if name.lowercased().hasPrefix("0x"), let number = UInt32(name.dropFirst(2), radix: 16) {
            self.networkCode = number
        } else {
            return nil
        }
    }

    public var description: String { name }
}

/// An HTTP/2 SETTINGS parameter (RFC 9113 §6.5.2).
public struct HTTP2Setting: Hashable, Sendable {
    public var identifier: UInt16
    public var value: UInt32

    public init(identifier: UInt16, value: UInt32) {
        self.identifier = identifier
        self.value = value
    }

    public static func headerTableSize(_ value: UInt32) -> Self { Self(identifier: 0x1, value: value) }
    public static func enablePush(_ value: UInt32) -> Self { Self(identifier: 0x2, value: value) }
    public static func maxConcurrentStreams(_ value: UInt32) -> Self { Self(identifier: 0x3, value: value) }
    public static func initialWindowSize(_ value: UInt32) -> Self { Self(identifier: 0x4, value: value) }
    public static func maxFrameSize(_ value: UInt32) -> Self { Self(identifier: 0x5, value: value) }
    public static func maxHeaderListSize(_ value: UInt32) -> Self { Self(identifier: 0x6, value: value) }
}
