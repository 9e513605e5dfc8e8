public import PushMockCore

/// One exchange as the ``RecordingStore`` keeps it: its journal line and a summary.
public struct StoredExchange: Sendable {
    /// The sequence number (also in the line).
    public let sequence: UInt64
    /// The fields queries filter on.
    public let summary: ExchangeSummary
    /// The journal line without its trailing newline (a slice of the batch's buffer).
    public let line: ArraySlice<UInt8>

    /// An estimate of the heap memory this entry keeps alive (its line's buffer, the
    /// summary's strings, its slot), which the store's byte capacity counts.
    package let retainedBytes: Int

    /// Array header plus allocator bookkeeping of one heap block, roughly.
    static let heapBlockOverhead = 48

    /// Decodes the full record from the line.
    public func record() throws(JournalDecodingError) -> ExchangeRecord {
        try ExchangeRecord.decode(jsonLine: line)
    }
}

// The initialisers live in an extension and call the memberwise one: written in the struct as
// assignments to each field of `self`, the optimiser built the entry and then copied it whole
// (a retain and a release of the line and of every string of the summary, once per record).
extension StoredExchange {
    public init(sequence: UInt64, summary: ExchangeSummary, line: ArraySlice<UInt8>) {
        self.init(sequence: sequence, summary: summary, line: line, lineBufferCapacity: line.count)
    }

    /// An entry whose line lives in a buffer of `lineBufferCapacity` bytes.
    package init(sequence: UInt64, summary: consuming ExchangeSummary, line: ArraySlice<UInt8>, lineBufferCapacity: Int) {
        let retainedBytes = Self.heapBlockOverhead + lineBufferCapacity + summary.heapBytes + MemoryLayout<StoredExchange?>.stride
        self.init(sequence: sequence, summary: summary, line: line, retainedBytes: retainedBytes)
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
        self.init(borrowing: record)
    }

    /// The summary of a record, which is only read (the store's hot path: passing a record
    /// owned copies it).
    init(borrowing record: borrowing ExchangeRecord) {
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

    /// Heap bytes of the strings that do not fit inline (more than 15 UTF-8 bytes), roughly.
    var heapBytes: Int {
        Self.heapBytes(of: namespace) + Self.heapBytes(of: environment)
            + Self.heapBytes(of: token) + Self.heapBytes(of: topic) + Self.heapBytes(of: project)
            + Self.heapBytes(of: pushType) + Self.heapBytes(of: reason)
    }

    private static func heapBytes(of text: String?) -> Int {
        guard let count = text?.utf8.count, count > 15 else { return 0 }
        return count + StoredExchange.heapBlockOverhead
    }
}
