// The queries over recordings live in their own target (the gateway needs them without the
// assertions, policy and golden-file code); `import PushMockToolkit` keeps bringing them.
@_exported public import PushMockQuery
// The records the checks read (`ExchangeRecord`, `RecordingStore`) are part of this API.
@_exported public import PushMockRecording

/// PushMockToolkit: what tests and CI do with recordings — queries, assertions with
/// nearest-miss reports, deep-link checks against a route table, policy checks, golden files.
/// Pure logic over `ExchangeRecord`s, no networking: the control API's check endpoints
/// (`PushMockCheckAPI`), the CLI and Swift tests all use the same code.
public enum PushMockToolkit {
    /// The toolkit's version of the formats it reads and writes (route tables, policy files,
    /// golden files).
    public static let formatVersion = 1
}
