/// The six kinds of JSON value.
///
/// Reported by ``JSONScanner`` for the top-level value so that callers (for example an APNs
/// payload check that requires an object) can decide without building a ``JSONValue``.
public enum JSONKind: Sendable, Hashable {
    case object
    case array
    case string
    case number
    case bool
    case null
}
