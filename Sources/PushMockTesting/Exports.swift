// One import for a test: the harness, the query and expectation types, the sender, and the
// wire values they take (`Glob`, `JSONValue`, `Timestamp`).
@_exported public import PushMockCore
@_exported public import PushMockJSON
@_exported public import PushMockSender
// Fault rules, presets and device reports are what the harness takes and returns.
@_exported public import PushMockSimulation
@_exported public import PushMockToolkit
