/// Numbered placeholders, consistent within one golden file: the same value of the same kind
/// always gets the same placeholder, and numbers follow first appearance (`<apns-id-1>`,
/// `<apns-id-2>`, …), so a retry that reuses an `apns-id` is visibly the same id.
///
/// In anonymous mode every value of a kind gets the bare `<kind>`; the normaliser uses it to
/// compute sort keys that do not depend on numbering (``GoldenConfiguration/Order/byContent``).
struct PlaceholderTable {
    let isAnonymous: Bool
    private var assigned: [String: [String: String]] = [:]
    /// Whole string values to replace wherever they appear in an entry, with what.
    private(set) var substitutions: [String: String] = [:]

    init(isAnonymous: Bool) {
        self.isAnonymous = isAnonymous
    }

    /// The placeholder for `value` of `kind` (`<kind-n>`), assigned on first use.
    mutating func placeholder(for value: String, kind: String) -> String {
        if let existing = assigned[kind]?[value] { return existing }
        let number = (assigned[kind]?.count ?? 0) + 1
        let placeholder = isAnonymous ? "<\(kind)>" : "<\(kind)-\(number)>"
        assigned[kind, default: [:]][value] = placeholder
        return placeholder
    }

    /// Remembers that `value`, wherever it appears as a whole string, stands for `replacement`.
    /// The first registration wins.
    mutating func substitute(_ value: String, with replacement: String) {
        guard !value.isEmpty, substitutions[value] == nil else { return }
        substitutions[value] = replacement
    }
}
