/// The one error type of the sender: configuration and credential problems, payloads and
/// templates that cannot be rendered, recipient files that cannot be read, and — inside a
/// ``DeliveryFailure`` — the transport fault or server answer a delivery finally failed with.
///
/// Equality and hashing ignore ``cause``.
public struct SenderError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem it is. New codes may be added; compare with `==`, do not `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Hashable, Sendable, CaseIterable {
            case invalidConfiguration
            case invalidCredentials
            case invalidPayload
            case templateSyntax
            case templateVariableMissing
            case invalidRecipients
            case connectionFailed
            case connectionClosed
            case goAway
            case streamReset
            case timeout
            case serverError
            case authorizationFailed
            case cancelled
            case shutdown
        }

        private let wrapped: Wrapped

        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// A configuration value is missing, out of range or contradicts another one.
        public static let invalidConfiguration = Self(.invalidConfiguration)
        /// A key, certificate, PKCS#12 bundle or service account could not be read.
        public static let invalidCredentials = Self(.invalidCredentials)
        /// A payload or message is not valid JSON or not an object.
        public static let invalidPayload = Self(.invalidPayload)
        /// A template has an unterminated or empty `{{ }}` placeholder.
        public static let templateSyntax = Self(.templateSyntax)
        /// A template names a variable the data does not have.
        public static let templateVariableMissing = Self(.templateVariableMissing)
        /// A CSV or JSON Lines recipient file has a bad row.
        public static let invalidRecipients = Self(.invalidRecipients)
        /// The TCP connection or the TLS handshake failed.
        public static let connectionFailed = Self(.connectionFailed)
        /// The connection closed before the response arrived.
        public static let connectionClosed = Self(.connectionClosed)
        /// The server sent GOAWAY before answering.
        public static let goAway = Self(.goAway)
        /// The server reset the stream (RST_STREAM).
        public static let streamReset = Self(.streamReset)
        /// No response within the request timeout.
        public static let timeout = Self(.timeout)
        /// The server answered with a retryable status (429, 500, 503) every time.
        public static let serverError = Self(.serverError)
        /// An OAuth2 access token could not be obtained.
        public static let authorizationFailed = Self(.authorizationFailed)
        /// The caller cancelled the send.
        public static let cancelled = Self(.cancelled)
        /// The sender was shut down before the delivery finished.
        public static let shutdown = Self(.shutdown)

        /// Every code, for exhaustive tests.
        public static let all: [Code] = Wrapped.allCases.map(Code.init)

        /// The code's name, e.g. `connectionFailed`.
        public var description: String { wrapped.rawValue }
    }

    /// What kind of problem.
    public var code: Code
    /// What happened, naming the field or value at fault.
    public var message: String
    /// The underlying error, if any (not part of equality or of ``description``).
    public var cause: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The code and the message. The message already says what the cause means for a person
    /// (repeating the cause's own description doubled every line and, for a refused connection,
    /// printed NIO's nested address list twice); ``cause`` is there for programs.
    public var description: String {
        "\(code): \(message)"
    }

    public static func == (lhs: SenderError, rhs: SenderError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}
