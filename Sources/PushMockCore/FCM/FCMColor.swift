/// `google.type.Color` in `android.notification.light_settings.color`: RGBA components in
/// [0, 1]. `alpha` is a `FloatValue` wrapper, so it may be absent (opaque).
public struct FCMColor: Sendable, Hashable {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double?

    public init(red: Double, green: Double, blue: Double, alpha: Double? = nil) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    init(_ parsed: FCMParsedMessage) {
        red = parsed.float("red") ?? 0
        green = parsed.float("green") ?? 0
        blue = parsed.float("blue") ?? 0
        alpha = parsed.float("alpha")
    }
}
