/// When golden files are written.
public enum GoldenRecordMode: Sendable, Hashable, CaseIterable {
    /// Only compare: a missing file or a difference is a failure. The default, and the only
    /// mode a CI run gets without an explicit override.
    case never
    /// Write files that do not exist yet; compare the others.
    case missing
    /// Write every file whose content differs (and every missing one); matching files are
    /// left untouched.
    case all
}
