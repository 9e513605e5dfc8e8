/// A reason text from a low-level parser, carried as an error.
struct FCMReasonText: Error, Sendable, Hashable {
    let text: String

    init(_ text: String) { self.text = text }
}
