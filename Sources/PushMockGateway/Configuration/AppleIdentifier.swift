/// The shapes of Apple's identifiers, checked where keys, teams and tokens are declared (config
/// file and control API) so that a declaration real APNs could never match is refused with a
/// reason, rather than working against the mock and failing against Apple.
enum AppleIdentifier {
    /// Key IDs and team IDs: ten uppercase letters and digits (`ABC123DEFG`), as the developer
    /// portal shows them and as the JWT's `kid` and `iss` carry them.
    static func checkTenCharacterID(_ text: String, _ what: String) throws {
        let isValid = text.utf8.count == 10 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }
        guard isValid else {
            throw DefinitionError("\(what) \"\(text)\": Apple's are 10 uppercase letters and digits, such as ABC123DEFG")
        }
    }

    /// Bundle IDs: letters, digits, hyphens and periods, not empty (Apple's rule for an App ID's
    /// bundle ID). Topic suffixes such as `.voip` stay within it.
    static func checkBundleID(_ text: String, _ what: String = "bundle ID") throws {
        let isValid =
            !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x2E
            }
        guard isValid else {
            throw DefinitionError("\(what) \"\(text)\": letters, digits, hyphens and periods only, such as com.example.app")
        }
    }
}
