import PushMockQuery
public import PushMockRecording

/// Checks `records` against the golden file `<directory>/<name>.golden.json` and throws a
/// ``GoldenError`` whose description is the readable diff (or how to create a missing file).
/// Framework-free: works from Swift Testing (`#expect(throws: Never.self)`, or just `try`) and
/// XCTest alike.
///
/// ```swift
/// @Test func doseReminder() async throws {
///     try await withPushMock { mock in
///         // … send notifications …
///         try assertGolden(mock.recordings.all(), named: "dose-reminder")
///     }
/// }
/// ```
///
/// Re-record with `PUSHMOCK_RECORD_GOLDEN=1 swift test` (or `=missing` for new files only);
/// in CI recording is refused unless `PUSHMOCK_RECORD_GOLDEN_IN_CI=1`.
///
/// - Parameters:
///   - records: The exchanges to compare, usually filtered to one scenario.
///   - name: The file name without extension; `/` makes subdirectories.
///   - directory: Where golden files live; by default `Recordings/golden` in the package
///     that contains the calling file.
///   - configuration: What the file shows and how it is normalised.
///   - environment: The variables deciding whether to record; the process environment by
///     default.
///   - filePath: The calling file, used to find the package.
/// - Returns: ``GoldenOutcome/matched`` or ``GoldenOutcome/recorded(_:)`` (say so in the test
///   log: a recorded file still needs review).
/// - Throws: ``GoldenError`` with code `mismatch`, `missing`, `recordingRefusedInCI`,
///   `invalidSetting`, `invalidName`, `invalidFile` or `fileSystem`.
@discardableResult
public func assertGolden(
    _ records: some Sequence<ExchangeRecord>,
    named name: String,
    directory: String? = nil,
    configuration: GoldenConfiguration = GoldenConfiguration(),
    environment: GoldenEnvironment = .process,
    filePath: StaticString = #filePath
) throws(GoldenError) -> GoldenOutcome {
    let file = try GoldenFile(
        named: name,
        directory: directory ?? GoldenFile.defaultDirectory(forSourceFile: "\(filePath)")
    )
    return try file.assert(records, configuration: configuration, environment: environment)
}

/// Checks the records that match `query` against the golden file at `path` and throws a
/// ``GoldenError`` whose description is the readable diff. A relative `path` is resolved
/// against the package that contains the calling file, so any file name works — for example
/// `Examples/LoopHealth/pushmock/golden/dose-reminder.json`.
///
/// ```swift
/// try assertGolden(
///     mock.recordings.all(),
///     path: "Recordings/golden/dose-reminder.json",
///     matching: RecordingQuery(platform: .apns, topic: "com.example.loop")
/// )
/// ```
///
/// Recording follows the same environment rules as ``assertGolden(_:named:directory:configuration:environment:filePath:)``.
@discardableResult
public func assertGolden(
    _ records: some Sequence<ExchangeRecord>,
    path: String,
    matching query: RecordingQuery = RecordingQuery(),
    configuration: GoldenConfiguration = GoldenConfiguration(),
    environment: GoldenEnvironment = .process,
    filePath: StaticString = #filePath
) throws(GoldenError) -> GoldenOutcome {
    let file = GoldenFile(path: path, relativeToPackageOf: "\(filePath)")
    return try file.assert(records.filter(query.matches), configuration: configuration, environment: environment)
}

extension GoldenFile {
    /// ``verify(_:configuration:environment:)`` that turns a mismatch or a missing file into
    /// the thrown ``GoldenError`` test helpers need.
    @discardableResult
    public func assert(
        _ records: some Sequence<ExchangeRecord>,
        configuration: GoldenConfiguration = GoldenConfiguration(),
        environment: GoldenEnvironment = .process
    ) throws(GoldenError) -> GoldenOutcome {
        let outcome = try verify(records, configuration: configuration, environment: environment)
        switch outcome {
        case .matched, .recorded:
            return outcome
        case .mismatched(let mismatch):
            throw GoldenError(.mismatch, "Golden file \(path) does not match the recording.", path: path, mismatch: mismatch)
        case .missing:
            throw GoldenError(.missing, missingFileMessage(environment: environment), path: path)
        }
    }
}
