/// Token rotation as a chain: a token replaced by another names it (`replacedBy`), and a device
/// has one current token, the newest of its chain.
///
/// Rotating a token that was already replaced rotates the chain's newest token instead (`A→B`,
/// then "rotate A to C" gives `A→B→C`): the first new token is never orphaned, active with
/// nobody knowing. Rotating to the token that is already the newest changes nothing.
import PushMockCore

enum RotationChain {
    /// The newest token of `token`'s chain (`token` itself when it was never replaced). Stops
    /// at a token seen before, so a chain that loops back cannot hang the registry.
    static func newest<Token: StringIdentifier>(from token: Token, replacedBy: (Token) -> Token?) -> Token {
        var current = token
        var seen: Set<Token> = [token]
        while let next = replacedBy(current), seen.insert(next).inserted {
            current = next
        }
        return current
    }
}
