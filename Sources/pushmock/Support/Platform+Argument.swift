public import ArgumentParser
public import PushMockCore

/// `--platform apns` and friends parse straight into the typed vocabulary.
extension Platform: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(rawValue: argument)
    }

    public static var allValueStrings: [String] { Platform.all.map(\.rawValue) }
}

/// `--service apns|fcm|expo`: a push service, never one of the supporting endpoints (OAuth, IID).
struct PushServiceArgument: ExpressibleByArgument {
    let platform: Platform

    init?(argument: String) {
        guard let platform = Platform(pushService: argument) else { return nil }
        self.platform = platform
    }

    static var allValueStrings: [String] { Platform.all.filter(\.isPushService).map(\.rawValue) }
}
