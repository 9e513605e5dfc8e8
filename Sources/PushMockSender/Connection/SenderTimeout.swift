/// Runs `body`, giving up after `timeout` with ``SenderError/Code/timeout`` (the body's task is
/// cancelled, which resets an HTTP/2 stream it waits on). For the requests the sender makes
/// outside a ``DeliveryEngine`` (Expo's, the OAuth token request), which have no driver timing
/// them out.
func withSenderTimeout<Value: Sendable>(
    _ timeout: Duration,
    _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw SenderError(.timeout, "no answer within \(timeout)")
        }
        defer { group.cancelAll() }
        guard let value = try await group.next() else { throw SenderError(.timeout, "no answer") }
        return value
    }
}
