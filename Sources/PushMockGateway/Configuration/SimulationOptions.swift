public import PushMockSimulation

/// How the gateway simulates the devices behind the tokens it accepts notifications for.
public struct SimulationOptions: Sendable, Hashable {
    /// Keep a simulated device (inbox and timeline) per token. Default: true. Turn off for
    /// throughput runs that send millions of notifications.
    public var simulateDevices: Bool
    /// The connectivity a device has when it is first seen. Default: online.
    public var defaultConnectivity: Connectivity
    /// How long APNs keeps a notification sent without `apns-expiration` (Apple: "stores the
    /// notification according to APNs storage policy", up to 30 days). Default: 30 days.
    public var apnsDefaultStorage: Duration
    /// Memory bounds and FCM's storage limits.
    public var limits: DeliveryLimits
    /// Lint accepted notifications and record the findings with them (`docs/lint-rules.md`);
    /// `nil` turns linting off. Default: ``LintConfiguration/standard``.
    public var lint: LintConfiguration?

    public init(
        simulateDevices: Bool = true,
        defaultConnectivity: Connectivity = .online,
        apnsDefaultStorage: Duration = .seconds(30 * 86_400),
        limits: DeliveryLimits = .defaults,
        lint: LintConfiguration? = .standard
    ) {
        self.simulateDevices = simulateDevices
        self.defaultConnectivity = defaultConnectivity
        self.apnsDefaultStorage = apnsDefaultStorage
        self.limits = limits
        self.lint = lint
    }

    public static let defaults = SimulationOptions()
}
