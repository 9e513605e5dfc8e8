/// Why a golden-file check failed or could not run. The ``description`` is written for the
/// person reading a test failure or CLI output: it says what happened and what to do.
///
/// ```swift
/// do {
///     try assertGolden(records, named: "dose-reminder")
/// } catch {
///     print(error)          // the readable diff, or how to create the missing file
///     if error.code == .mismatch { … }
/// }
/// ```
public struct GoldenError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. Compare with the static members; new kinds may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case mismatch, missing, recordingRefusedInCI, invalidSetting, invalidName, invalidFile, fileSystem, invalidRule
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The recording differs from the golden file.
        public static let mismatch = Code(.mismatch)
        /// There is no golden file and recording was not requested.
        public static let missing = Code(.missing)
        /// Recording was requested in a CI run without the explicit override.
        public static let recordingRefusedInCI = Code(.recordingRefusedInCI)
        /// An environment variable has a value PushMock does not understand.
        public static let invalidSetting = Code(.invalidSetting)
        /// The golden file name is not a safe relative name.
        public static let invalidName = Code(.invalidName)
        /// The golden file exists but is not a golden file PushMock can read.
        public static let invalidFile = Code(.invalidFile)
        /// Reading or writing the file failed.
        public static let fileSystem = Code(.fileSystem)
        /// A ``GoldenRule`` has an invalid path, pattern or prefix.
        public static let invalidRule = Code(.invalidRule)

        public var description: String { base.rawValue }
    }

    public let code: Code
    /// The explanation, without the diff of a mismatch (see ``description``).
    public let message: String
    /// The golden file concerned, if any.
    public let path: String?
    /// For ``Code/mismatch``: the differences.
    public let mismatch: GoldenMismatch?

    /// Creates an error.
    public init(_ code: Code, _ message: String, path: String? = nil, mismatch: GoldenMismatch? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.mismatch = mismatch
    }

    /// The full report: for a mismatch the readable diff, otherwise the message.
    public var description: String {
        report(style: .plain)
    }

    /// The full report, coloured when `style` asks for it (terminal output).
    public func report(style: TextStyle) -> String {
        if let mismatch { return mismatch.report(style: style) }
        return message
    }
}
