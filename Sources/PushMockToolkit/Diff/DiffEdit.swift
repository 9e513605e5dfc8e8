/// One step of an edit script that turns an *old* sequence into a *new* one.
///
/// Indices are positions in the respective sequence (0-based). A script lists every element of
/// both sequences exactly once, in order: `equal` consumes one of each, `delete` one old element,
/// `insert` one new element.
public enum DiffEdit: Sendable, Hashable {
    /// `old[old] == new[new]`; kept.
    case equal(old: Int, new: Int)
    /// `old[old]` is not in the new sequence.
    case delete(old: Int)
    /// `new[new]` is not in the old sequence.
    case insert(new: Int)

    /// `true` for ``equal(old:new:)``.
    public var isEqual: Bool {
        if case .equal = self { return true }
        return false
    }
}
