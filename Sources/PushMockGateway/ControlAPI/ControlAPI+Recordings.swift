import PushMockCore
import PushMockRecording

/// `/_pushmock/recordings…`
extension ControlAPI {
    func recordingRoutes(_ request: ControlRequest) throws -> HTTPResponseMessage? {
        if request.matches("GET", "recordings") {
            return try listRecordings(query: request.query)
        }
        if request.matches("DELETE", "recordings") {
            let count = state.recordings.count
            state.recordings.clear()
            return Self.json(status: 200, ["cleared": count])
        }
        if request.matches("GET", "recordings", "*") {
            let sequence = request.segments[1]
            guard let number = UInt64(sequence),
                let entry = state.recordings.entries(matching: { _ in true }, newestFirst: false, limit: 1, after: number &- 1).first,
                entry.sequence == number
            else {
                throw ControlAPIError(404, "no recording with sequence \(sequence)")
            }
            return Self.rawJSON(status: 200, Array(entry.line))
        }
        return nil
    }

    private func listRecordings(query: [String: String]) throws -> HTTPResponseMessage {
        let limit = try query["limit"].map { value -> Int in
            guard let number = Int(value), number > 0 else { throw ControlAPIError(400, "limit must be a positive integer") }
            return number
        } ?? 100
        let after = try query["after"].map { value -> UInt64 in
            guard let number = UInt64(value) else { throw ControlAPIError(400, "after must be a sequence number") }
            return number
        }
        let status = try query["status"].map { value -> Int in
            guard let number = Int(value) else { throw ControlAPIError(400, "status must be a number") }
            return number
        }
        let platform = query["platform"]
        let token = query["token"]?.lowercased()
        let topic = query["topic"]
        let reason = query["reason"]
        let records = state.recordings.entries(
            matching: { summary in
                if let platform, summary.platform != platform { return false }
                if let token, summary.token?.lowercased() != token { return false }
                if let topic, summary.topic != topic { return false }
                if let status, summary.status != status { return false }
                if let reason, summary.reason != reason { return false }
                return true
            },
            newestFirst: true,
            limit: limit,
            after: after
        )
        // The stored lines are the journal's JSON objects: embed them as they are.
        var bytes: [UInt8] = Array(#"{"records":["#.utf8)
        for (index, entry) in records.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: entry.line)
        }
        bytes.append(contentsOf: #"],"count":\#(records.count),"total":\#(state.recordings.count)}"#.utf8)
        return Self.rawJSON(status: 200, bytes)
    }

}
