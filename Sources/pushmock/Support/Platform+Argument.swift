public import ArgumentParser
public import PushMockCore

/// `--platform apns` and friends parse straight into the typed vocabulary.
extension Platform: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(rawValue: argument)
    }

    public static var allValueStrings: [String] { Platform.all.map(\.rawValue) }
}
