import PushMockTesting

/// The code under test in the examples: a slice of a health app's backend ("Loop") that
/// reminds people to take a dose. In your project this is your own code; it only needs to
/// let a test choose the sender (or the gateway URL and CA) it uses.
struct LoopNotifier {
    let sender: APNsSender

    struct Dose: Sendable {
        var id: String
        var compoundName: String
    }

    /// Sends the daily dose reminder; returns the apns-id, or throws the gateway's reason.
    @discardableResult
    func sendDoseReminder(to deviceToken: String, for dose: Dose) async throws -> String {
        let payload = APNsPayload(
            alert: .init(title: "Time for your \(dose.compoundName)", body: "Tap to log today's dose."),
            sound: .default,
            category: "DOSE_REMINDER",
            interruptionLevel: .timeSensitive,
            custom: ["deep_link": .string("loop://protocols/\(dose.id)/log"), "protocol_id": .string(dose.id)]
        )
        let result = await sender.send(APNsNotification(deviceToken: deviceToken, payload: payload, collapseID: "dose-\(dose.id)"))
        switch result.outcome {
        case .accepted(let acceptance): return acceptance.id
        case .rejected(let rejection): throw ReminderError.rejected(rejection.reason)
        case .tokenInvalid: throw ReminderError.tokenInvalid
        case .failed(let failure): throw ReminderError.failed(failure.reason)
        }
    }

    enum ReminderError: Error {
        case rejected(String)
        case tokenInvalid
        case failed(String)
    }
}
