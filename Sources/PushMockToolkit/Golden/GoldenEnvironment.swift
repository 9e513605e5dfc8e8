import Foundation

/// The environment variables that decide whether golden files may be written.
///
/// | variable | values |
/// |---|---|
/// | `PUSHMOCK_RECORD_GOLDEN` | unset, empty, `0`, `false`, `no`, `off`, `never`: compare only. `1`, `true`, `yes`, `on`, `all`: re-record files that differ or are missing. `missing`: write only files that do not exist. |
/// | `PUSHMOCK_RECORD_GOLDEN_IN_CI` | `1`/`true`/`yes`/`on`: allow recording in a CI run. |
/// | `CI` and CI-specific variables | a CI run (see ``continuousIntegrationIndicator``). |
///
/// Tests inject the variables instead of reading the process environment:
///
/// ```swift
/// let environment = GoldenEnvironment(["PUSHMOCK_RECORD_GOLDEN": "missing"])
/// try environment.recordMode()   // .missing
/// ```
public struct GoldenEnvironment: Sendable, Hashable {
    /// `PUSHMOCK_RECORD_GOLDEN`.
    public static let recordVariable = "PUSHMOCK_RECORD_GOLDEN"
    /// `PUSHMOCK_RECORD_GOLDEN_IN_CI`.
    public static let recordInCIVariable = "PUSHMOCK_RECORD_GOLDEN_IN_CI"

    /// Variables that CI services set, checked in this order after `CI` itself.
    static let ciServiceVariables = [
        "CONTINUOUS_INTEGRATION", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "TRAVIS",
        "JENKINS_URL", "TEAMCITY_VERSION", "TF_BUILD", "BITBUCKET_BUILD_NUMBER", "APPVEYOR", "DRONE",
        "CODEBUILD_BUILD_ID", "SEMAPHORE", "BITRISE_IO", "CI_XCODE_CLOUD",
    ]

    /// The variables.
    public var variables: [String: String]

    /// An environment with exactly these variables.
    public init(_ variables: [String: String]) {
        self.variables = variables
    }

    /// The current process's environment.
    public static var process: GoldenEnvironment {
        GoldenEnvironment(ProcessInfo.processInfo.environment)
    }

    /// The mode `PUSHMOCK_RECORD_GOLDEN` asks for, before the CI check.
    /// - Throws: ``GoldenError/Code/invalidSetting`` for a value it does not understand (a typo
    ///   must not silently mean "compare only" or "record").
    public func requestedMode() throws(GoldenError) -> GoldenRecordMode {
        guard let raw = variables[Self.recordVariable] else { return .never }
        switch raw.trimmingCharacters(in: .whitespaces).lowercased() {
        case "", "0", "false", "no", "off", "never": return .never
        case "1", "true", "yes", "on", "all": return .all
        case "missing": return .missing
        default:
            throw GoldenError(
                .invalidSetting,
                "\(Self.recordVariable)=\(raw) is not understood. Use 1 (re-record files that differ or are missing), missing (write only absent files) or 0 (compare only)."
            )
        }
    }

    /// The variable that shows this is a CI run, as `NAME=value`, or `nil` outside CI.
    /// `CI` counts unless it is empty, `0`, `false`, `no` or `off`; the service variables
    /// (`GITHUB_ACTIONS`, `GITLAB_CI`, `BUILDKITE`, `JENKINS_URL`, `TF_BUILD`, …) under the same rule.
    public var continuousIntegrationIndicator: String? {
        for name in ["CI"] + Self.ciServiceVariables {
            if let value = variables[name], Self.isSet(value) {
                return "\(name)=\(value)"
            }
        }
        return nil
    }

    /// Whether `PUSHMOCK_RECORD_GOLDEN_IN_CI` allows recording in CI.
    public var allowsRecordingInCI: Bool {
        variables[Self.recordInCIVariable].map(Self.isSet) ?? false
    }

    /// The mode to use: ``requestedMode()`` unless this is a CI run.
    /// - Throws: ``GoldenError/Code/recordingRefusedInCI`` when recording is requested in CI
    ///   without `PUSHMOCK_RECORD_GOLDEN_IN_CI=1` — whether or not a file would change, so a
    ///   misconfigured pipeline fails loudly instead of approving its own output.
    public func recordMode() throws(GoldenError) -> GoldenRecordMode {
        let requested = try requestedMode()
        guard requested != .never, let indicator = continuousIntegrationIndicator, !allowsRecordingInCI else {
            return requested
        }
        let setting = variables[Self.recordVariable] ?? ""
        throw GoldenError(
            .recordingRefusedInCI,
            """
            \(Self.recordVariable)=\(setting) is set, but this is a CI run (\(indicator)). \
            Golden files are never re-recorded in CI: CI must check the files reviewers approved, not overwrite them. \
            Remove \(Self.recordVariable) from the CI configuration, re-record locally and commit the files; \
            if this job exists to produce golden files, also set \(Self.recordInCIVariable)=1.
            """
        )
    }

    static func isSet(_ value: String) -> Bool {
        switch value.trimmingCharacters(in: .whitespaces).lowercased() {
        case "", "0", "false", "no", "off": false
        default: true
        }
    }
}
