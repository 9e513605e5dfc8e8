/// The `sound` of an Expo message: a name (`"default"` or a bundled file such as
/// `"bells_sound.wav"`), or the iOS critical-alert object `{"critical":…,"name":…,"volume":…}`.
///
/// `null` means no sound and is read as an absent field (the Node SDK's type allows it).
package enum ExpoSound: Hashable, Sendable {
    case named(String)
    case critical(ExpoCriticalSound)
}

/// The object form of `sound` (Node SDK type `{critical?: boolean; name?: string | null;
/// volume?: number}`), relayed as the APNs `aps.sound` dictionary.
package struct ExpoCriticalSound: Hashable, Sendable {
    /// `critical`: play as a critical alert (needs Apple's entitlement on the device).
    package var critical: Bool?
    /// `name`: the sound file, `"default"`, or `nil` (absent or `null`).
    package var name: String?
    /// `volume`: 0…1 (APNs' range for critical alerts).
    package var volume: Double?

    package init(critical: Bool? = nil, name: String? = nil, volume: Double? = nil) {
        self.critical = critical
        self.name = name
        self.volume = volume
    }
}
