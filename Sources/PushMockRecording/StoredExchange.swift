public import PushMockCore

/// One exchange as the ``RecordingStore`` keeps it: its journal line and a summary.
public struct StoredExchange: Sendable {
    /// The sequence number (also in the line).
    public let sequence: UInt64
    /// The fields queries filter on.
    public let summary: ExchangeSummary
    /// The journal line without its trailing newline (a slice of the batch's buffer).
    public let line: ArraySlice<UInt8>

    public init(sequence: UInt64, summary: ExchangeSummary, line: ArraySlice<UInt8>) {
        self.sequence = sequence
        self.summary = summary
        self.line = line
    }

    /// Decodes the full record from the line.
    public func record() throws(JournalDecodingError) -> ExchangeRecord {
        try ExchangeRecord.decode(jsonLine: line)
    }
}

/// The fields of an exchange that queries filter on without decoding its line.
public struct ExchangeSummary: Sendable, Hashable {
    public var timeMilliseconds: Int64
    public var namespace: String?
    public var platform: Platform
    public var environment: String?
    public var token: String?
    public var topic: String?
    public var project: String?
    public var pushType: String?
    public var priority: Int?
    public var status: Int
    public var reason: String?

    /// The summary of a record.
    public init(_ record: ExchangeRecord) {
        self.timeMilliseconds = record.timeMilliseconds
        self.namespace = record.namespace
        self.platform = record.platform
        self.environment = record.environment
        self.token = record.notification?.token
        self.topic = record.notification?.topic
        self.project = record.notification?.project
        self.pushType = record.notification?.pushType
        self.priority = record.notification?.priority
        self.status = record.response.status
        self.reason = record.response.reason
    }
}
