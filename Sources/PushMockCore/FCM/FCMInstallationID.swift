/// Firebase installation IDs (FIDs): what `message.fid` must look like.
///
/// Firebase issues FIDs as 22 characters of URL-safe Base64 whose first character is `c`, `d`,
/// `e` or `f` (the top bits encode the FID version). The lenient default accepts the same
/// characters and lengths as a lenient registration token, so one set of fake identifiers works
/// for both targets.
public enum FCMInstallationID {
    /// Whether `fid` passes `rule`.
    public static func isWellFormed(_ fid: String, rule: FCMRegistrationToken.Rule = .lenient) -> Bool {
        if rule == .lenient {
            return FCMRegistrationToken.isWellFormed(fid, rule: .lenient)
        }
        let bytes = Array(fid.utf8)
        guard bytes.count == 22, let first = bytes.first else { return false }
        return "cdef".utf8.contains(first) && bytes.allSatisfy(FCMRegistrationToken.isBase64URLByte)
    }
}
