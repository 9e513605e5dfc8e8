import Foundation
import PushMockCore
public import PushMockRecording

/// A golden file on disk and the policy for checking and re-recording it.
///
/// ```swift
/// let file = try GoldenFile(named: "dose-reminder", directory: "Recordings/golden")
/// switch try file.verify(records) {
/// case .matched: break
/// case .mismatched(let mismatch): print(mismatch.report())
/// case .missing: print(file.missingFileMessage(environment: .process))
/// case .recorded(let recording): print(recording)
/// }
/// ```
///
/// Files are written only when `PUSHMOCK_RECORD_GOLDEN` asks for it and never in CI unless
/// `PUSHMOCK_RECORD_GOLDEN_IN_CI=1` (``GoldenEnvironment``). Writes are atomic.
public struct GoldenFile: Sendable, Hashable {
    /// The file's path, as given or built from a name (relative paths are relative to the
    /// working directory).
    public let path: String

    /// A golden file at an explicit path.
    public init(path: String) {
        self.path = path
    }

    /// `<directory>/<name>.golden.json`.
    /// - Parameters:
    ///   - name: Letters, digits, `.`, `_`, `-`; `/` separates subdirectories
    ///     (`"onboarding/day-1"`). A trailing `.golden.json` is accepted and not doubled.
    ///   - directory: Usually `Recordings/golden` in the package (see
    ///     ``defaultDirectory(forSourceFile:)``).
    /// - Throws: ``GoldenError/Code/invalidName`` for empty, absolute or `..` names and
    ///   other characters, so a test name can never write outside the directory.
    public init(named name: String, directory: String) throws(GoldenError) {
        let base = name.hasSuffix(GoldenDocument.fileExtension) ? String(name.dropLast(GoldenDocument.fileExtension.count)) : name
        let components = base.split(separator: "/", omittingEmptySubsequences: false)
        let isValid =
            !base.isEmpty
            && components.allSatisfy { component in
                !component.isEmpty && component != "." && component != ".."
                    && component.unicodeScalars.allSatisfy { scalar in
                        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                            || scalar == "." || scalar == "_" || scalar == "-"
                    }
            }
        guard isValid else {
            throw GoldenError(
                .invalidName,
                "Invalid golden file name \"\(name)\": use letters, digits, '.', '_' and '-', with '/' between subdirectories (no empty, '.' or '..' parts)."
            )
        }
        let separator = directory.isEmpty || directory.hasSuffix("/") ? "" : "/"
        self.init(path: directory + separator + base + GoldenDocument.fileExtension)
    }

    /// A golden file at `path`; a relative path is resolved against the package that
    /// contains `sourceFile` (see ``packageRoot(forSourceFile:)``), so
    /// `"Recordings/golden/dose-reminder.json"` means the same file whatever the working
    /// directory (Xcode runs tests elsewhere than `swift test`).
    public init(path: String, relativeToPackageOf sourceFile: String) {
        guard !path.hasPrefix("/") else {
            self.init(path: path)
            return
        }
        let root = Self.packageRoot(forSourceFile: sourceFile) ?? PathText.directory(of: sourceFile)
        self.init(path: root.isEmpty ? path : root + "/" + path)
    }

    /// The nearest directory above `sourceFile` with a `Package.swift` or `.git`, or `nil`.
    public static func packageRoot(forSourceFile sourceFile: String) -> String? {
        let fileManager = FileManager.default
        var directory = PathText.directory(of: sourceFile)
        while !directory.isEmpty {
            if fileManager.fileExists(atPath: directory + "/Package.swift") || fileManager.fileExists(atPath: directory + "/.git") {
                return directory
            }
            let parent = PathText.directory(of: directory)
            if parent == directory { break }
            directory = parent
        }
        return nil
    }

    /// `Recordings/golden` in the package that contains `sourceFile`: the nearest enclosing
    /// directory with a `Package.swift` or `.git`; the source file's own directory if there is
    /// none. Pass `#filePath` from a test so the location does not depend on the working
    /// directory (Xcode runs tests elsewhere).
    public static func defaultDirectory(forSourceFile sourceFile: String) -> String {
        if let root = packageRoot(forSourceFile: sourceFile) {
            return root + "/Recordings/golden"
        }
        let start = PathText.directory(of: sourceFile)
        return (start.isEmpty ? "." : start) + "/Recordings/golden"
    }

    /// Whether the file exists.
    public var exists: Bool {
        FileManager.default.fileExists(atPath: path)
    }

    /// The file's document, or `nil` when there is no file.
    /// - Throws: ``GoldenError/Code/fileSystem`` if it cannot be read,
    ///   ``GoldenError/Code/invalidFile`` if it is not a readable golden file.
    public func read() throws(GoldenError) -> GoldenDocument? {
        guard exists else { return nil }
        let data: Data
        do {
            data = try FileContents.read(path)
        } catch {
            throw GoldenError(.fileSystem, "Could not read golden file \(path): \(error.reason).", path: path)
        }
        return try GoldenDocument(parsing: String(decoding: data, as: UTF8.self), path: path)
    }

    /// Writes `document` atomically (temporary file, then rename), creating directories.
    public func write(_ document: GoldenDocument) throws(GoldenError) {
        try AtomicFile.write(Array(document.text.utf8), to: path)
    }

    /// Normalises `records` and checks them against the file, writing it only when the
    /// environment's ``GoldenEnvironment/recordMode()`` allows.
    /// - Throws: ``GoldenError`` when recording is refused in CI, a setting is invalid, or the
    ///   file cannot be read or written. Mismatches and missing files are outcomes, not errors.
    public func verify(
        _ records: some Sequence<ExchangeRecord>,
        configuration: GoldenConfiguration = GoldenConfiguration(),
        environment: GoldenEnvironment = .process
    ) throws(GoldenError) -> GoldenOutcome {
        let mode = try environment.recordMode()
        return try verify(GoldenDocument(records: records, configuration: configuration), mode: mode)
    }

    /// Checks an already normalised document against the file with an explicit mode (the CLI
    /// resolves the mode itself; tests use ``verify(_:configuration:environment:)``).
    public func verify(_ recorded: GoldenDocument, mode: GoldenRecordMode) throws(GoldenError) -> GoldenOutcome {
        let stored: GoldenDocument?
        do throws(GoldenError) {
            stored = try read()
        } catch  where error.code == .invalidFile && mode == .all {
            try write(recorded)
            return .recorded(
                GoldenRecording(path: path, change: .replacedUnreadable(reason: error.message), entryCount: recorded.entries.count))
        }
        guard let stored else {
            guard mode != .never else { return .missing }
            try write(recorded)
            return .recorded(GoldenRecording(path: path, change: .created, entryCount: recorded.entries.count))
        }
        if stored.entries == recorded.entries {
            return .matched
        }
        let mismatch = GoldenMismatch(path: path, golden: stored, recorded: recorded)
        guard mode == .all else { return .mismatched(mismatch) }
        try write(recorded)
        return .recorded(GoldenRecording(path: path, change: .updated(mismatch), entryCount: recorded.entries.count))
    }

    /// What to tell someone whose golden file does not exist.
    public func missingFileMessage(environment: GoldenEnvironment) -> String {
        var message = "No golden file at \(path)."
        if let indicator = environment.continuousIntegrationIndicator {
            message +=
                " Golden files are not created in CI (\(indicator)): run the tests locally with \(GoldenEnvironment.recordVariable)=missing, review the new file and commit it."
        } else {
            message +=
                " To create it from this recording, run the tests with \(GoldenEnvironment.recordVariable)=missing (or =1 to also re-record files that differ), then review the file and commit it."
        }
        return message
    }

    // MARK: Static conveniences

    /// ``verify(_:configuration:environment:)`` for `<directory>/<name>.golden.json`.
    public static func verify(
        _ records: some Sequence<ExchangeRecord>,
        named name: String,
        directory: String,
        configuration: GoldenConfiguration = GoldenConfiguration(),
        environment: GoldenEnvironment = .process
    ) throws(GoldenError) -> GoldenOutcome {
        try GoldenFile(named: name, directory: directory).verify(records, configuration: configuration, environment: environment)
    }

    /// ``verify(_:configuration:environment:)`` for the file at `path`.
    public static func verify(
        _ records: some Sequence<ExchangeRecord>,
        path: String,
        configuration: GoldenConfiguration = GoldenConfiguration(),
        environment: GoldenEnvironment = .process
    ) throws(GoldenError) -> GoldenOutcome {
        try GoldenFile(path: path).verify(records, configuration: configuration, environment: environment)
    }
}
