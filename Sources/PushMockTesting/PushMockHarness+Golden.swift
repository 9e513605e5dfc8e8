public import PushMockToolkit

extension PushMockHarness {
    /// Checks what this gateway recorded (the exchanges matching `query`, oldest first)
    /// against the golden file at `path`. Throws a ``GoldenError`` whose description is the
    /// readable diff, so a mismatch fails Swift Testing and XCTest alike.
    ///
    /// ```swift
    /// try await withPushMock { mock in
    ///     // … let the app's sender push through the mock …
    ///     try mock.assertGolden("Recordings/golden/dose-reminder.json", matching: RecordingQuery(platform: .apns))
    /// }
    /// ```
    ///
    /// A relative `path` is resolved against the package that contains the calling file. The
    /// file is written only when `PUSHMOCK_RECORD_GOLDEN` asks for it, and never in CI
    /// (`docs/golden-files.md`).
    @discardableResult
    public func assertGolden(
        _ path: String,
        matching query: RecordingQuery = RecordingQuery(),
        configuration: GoldenConfiguration = GoldenConfiguration(),
        environment: GoldenEnvironment = .process,
        filePath: StaticString = #filePath
    ) throws(GoldenError) -> GoldenOutcome {
        try GoldenFile(path: path, relativeToPackageOf: "\(filePath)")
            .assert(records(query), configuration: configuration, environment: environment)
    }
}
