import PushMockRecording

/// What start-up found in an existing journal (``JournalRecovery``), as `--ready-file` and
/// `GET /_pushmock/info` report it under `journalRecovery`.
package struct JournalRecoveryInfo: Codable, Sendable, Hashable {
    /// A fragment cut off the end of the journal.
    package struct TornLastLine: Codable, Sendable, Hashable {
        /// Where it started (the journal's length after the repair).
        package var byteOffset: Int64
        /// Its length.
        package var byteCount: Int64
        /// Where its bytes were saved (`<journal>.torn`), absent if saving failed.
        package var savedTo: String?
    }

    /// The highest sequence number already in the journal; the first new record gets this
    /// plus one. 0 for a new journal.
    package var lastSequenceAtStart: UInt64
    /// The torn last line that was cut off, if there was one.
    package var tornLastLine: TornLastLine?

    init(_ recovery: JournalRecovery) {
        lastSequenceAtStart = recovery.lastSequence
        tornLastLine = recovery.tornTail.map {
            TornLastLine(byteOffset: $0.byteOffset, byteCount: $0.byteCount, savedTo: $0.savedTo)
        }
    }
}
