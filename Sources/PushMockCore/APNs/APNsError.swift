/// An APNs error as it goes on the wire: the `:status`, and a body `{"reason":"…"}` that carries
/// a `timestamp` (milliseconds since the epoch) only for 410 responses.
///
/// The same JSON (without a timestamp) is what APNs puts in the debug data of a GOAWAY frame,
/// for example `{"reason":"BadCertificateEnvironment"}`.
public struct APNsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The reason string.
    public var reason: APNsReason
    /// When APNs confirmed the token was no longer valid for the topic (410 only).
    public var timestamp: Timestamp?

    public init(_ reason: APNsReason, timestamp: Timestamp? = nil) {
        self.reason = reason
        self.timestamp = timestamp
    }

    /// The HTTP status of the response.
    public var status: Int { reason.status ?? 500 }

    /// Appends the exact response body: `{"reason":"BadDeviceToken"}` or
    /// `{"reason":"Unregistered","timestamp":1700000000000}`.
    public func appendBody(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"reason":""#.utf8)
        appendEscaped(reason.rawValue, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        if let timestamp, status == 410 {
            bytes.append(contentsOf: #","timestamp":"#.utf8)
            bytes.append(contentsOf: String(timestamp.millisecondsSince1970).utf8)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// The response body bytes.
    public var body: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(48)
        appendBody(to: &bytes)
        return bytes
    }

    /// The JSON debug data APNs puts in a GOAWAY frame for this reason: `{"reason":"…"}`.
    public var goAwayDebugData: [UInt8] {
        APNsError(reason).body
    }

    public var description: String {
        if let timestamp { return "\(status) \(reason) (timestamp \(timestamp.millisecondsSince1970))" }
        return "\(status) \(reason)"
    }

    private func appendEscaped(_ string: String, to bytes: inout [UInt8]) {
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xf)])
            default: bytes.append(byte)
            }
        }
    }
}
