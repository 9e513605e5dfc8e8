/// `android.notification.light_settings`: the LED colour and blink pattern. Firebase marks all
/// three fields "Required"; the validator enforces that.
public struct FCMLightSettings: Sendable, Hashable {
    public var color: FCMColor
    public var lightOnDuration: Duration
    public var lightOffDuration: Duration

    public init(color: FCMColor, lightOnDuration: Duration, lightOffDuration: Duration) {
        self.color = color
        self.lightOnDuration = lightOnDuration
        self.lightOffDuration = lightOffDuration
    }
}
