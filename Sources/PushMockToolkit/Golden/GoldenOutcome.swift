/// The result of checking a recording against its golden file.
public enum GoldenOutcome: Sendable, Hashable {
    /// The file exists and its entries equal the recording's (member order and number
    /// spelling do not matter, so a hand-formatted file still matches).
    case matched
    /// The file exists and differs; nothing was written.
    case mismatched(GoldenMismatch)
    /// There is no file and recording was not requested; nothing was written.
    case missing
    /// The file was written because the environment asked for it.
    case recorded(GoldenRecording)
}

/// A golden file that was written.
public struct GoldenRecording: Sendable, Hashable, CustomStringConvertible {
    /// What happened to the file.
    public enum Change: Sendable, Hashable {
        /// It did not exist.
        case created
        /// It existed with other content (the differences from the old file).
        case updated(GoldenMismatch)
        /// It existed but could not be read as a golden file (e.g. merge-conflict markers).
        case replacedUnreadable(reason: String)
    }

    public let path: String
    public let change: Change
    /// Number of entries written.
    public let entryCount: Int

    public init(path: String, change: Change, entryCount: Int) {
        self.path = path
        self.change = change
        self.entryCount = entryCount
    }

    /// One line for logs and test output, e.g.
    /// `Recorded golden file Recordings/golden/dose.golden.json (new, 3 notifications).`
    public var description: String {
        let notifications = entryCount == 1 ? "1 notification" : "\(entryCount) notifications"
        switch change {
        case .created:
            return "Recorded golden file \(path) (new, \(notifications)). Review it and commit it."
        case .updated(let mismatch):
            let count = mismatch.differences.count
            return
                "Re-recorded golden file \(path) (\(count) \(count == 1 ? "difference" : "differences"), \(notifications)). Review the change before committing."
        case .replacedUnreadable:
            return "Re-recorded unreadable golden file \(path) (\(notifications)). Review it before committing."
        }
    }
}
