import Foundation
import PushMockJSON
import PushMockRecording
import PushMockToolkit
import Testing

@Suite("Golden files: recording policy and files")
struct GoldenFileTests {
    // MARK: Environment

    @Test(
        "PUSHMOCK_RECORD_GOLDEN values",
        arguments: [
            (nil, GoldenRecordMode.never), ("", .never), ("0", .never), ("false", .never), ("never", .never),
            ("1", .all), ("true", .all), ("YES", .all), (" all ", .all), ("on", .all), ("missing", .missing),
        ] as [(String?, GoldenRecordMode)]
    )
    func recordSetting(value: String?, mode: GoldenRecordMode) throws {
        let variables = value.map { ["PUSHMOCK_RECORD_GOLDEN": $0] } ?? [:]
        #expect(try GoldenEnvironment(variables).recordMode() == mode)
    }

    @Test("an unknown PUSHMOCK_RECORD_GOLDEN value is an error, not a guess")
    func invalidRecordSetting() {
        do {
            _ = try GoldenEnvironment(["PUSHMOCK_RECORD_GOLDEN": "mising"]).recordMode()
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidSetting)
            #expect(error.description.contains("PUSHMOCK_RECORD_GOLDEN=mising is not understood"))
        }
    }

    @Test(
        "CI detection",
        arguments: [
            ([:], nil), (["CI": "true"], "CI=true"), (["CI": "1"], "CI=1"), (["CI": "false"], nil), (["CI": "0"], nil),
            (["GITHUB_ACTIONS": "true"], "GITHUB_ACTIONS=true"), (["GITLAB_CI": "true"], "GITLAB_CI=true"),
            (["BUILDKITE": "true"], "BUILDKITE=true"), (["JENKINS_URL": "https://ci.example"], "JENKINS_URL=https://ci.example"),
            (["TF_BUILD": "True"], "TF_BUILD=True"), (["CI": "false", "CIRCLECI": "true"], "CIRCLECI=true"),
        ] as [([String: String], String?)]
    )
    func continuousIntegration(variables: [String: String], indicator: String?) {
        #expect(GoldenEnvironment(variables).continuousIntegrationIndicator == indicator)
    }

    @Test("recording in CI is refused with an explanation, unless explicitly allowed", arguments: ["1", "missing"])
    func refusedInCI(setting: String) throws {
        let environment = GoldenEnvironment(["CI": "true", "PUSHMOCK_RECORD_GOLDEN": setting])
        do {
            _ = try environment.recordMode()
            Issue.record("expected a refusal")
        } catch {
            #expect(error.code == .recordingRefusedInCI)
            #expect(error.description.contains("this is a CI run (CI=true)"))
            #expect(error.description.contains("PUSHMOCK_RECORD_GOLDEN_IN_CI=1"))
        }
        var allowed = environment
        allowed.variables["PUSHMOCK_RECORD_GOLDEN_IN_CI"] = "1"
        #expect(try allowed.recordMode() != .never)
        // Comparing in CI is what CI is for.
        #expect(try GoldenEnvironment(["CI": "true"]).recordMode() == .never)
    }

    // MARK: Verify and record

    @Test("a missing file is reported, not written, without the record variable")
    func missingFile() throws {
        let scratch = ScratchDirectory()
        defer { scratch.cleanup() }
        var factory = RecordFactory(seed: 1)
        let file = try GoldenFile(named: "dose-reminder", directory: scratch.path)
        #expect(try file.verify(factory.scenario(), environment: .empty) == .missing)
        #expect(!file.exists)
        #expect(file.missingFileMessage(environment: .empty).contains("PUSHMOCK_RECORD_GOLDEN=missing"))
        #expect(file.missingFileMessage(environment: GoldenEnvironment(["CI": "1"])).contains("not created in CI (CI=1)"))
    }

    @Test("round trip: record a missing file, then the same scenario with other random values matches")
    func roundTrip() throws {
        let scratch = ScratchDirectory()
        defer { scratch.cleanup() }
        let file = try GoldenFile(named: "onboarding/dose-reminder", directory: scratch.path)
        var first = RecordFactory(seed: 1)
        let recorded = try file.verify(first.scenario(), environment: GoldenEnvironment(["PUSHMOCK_RECORD_GOLDEN": "missing"]))
        guard case .recorded(let recording) = recorded else {
            Issue.record("expected a recording, got \(recorded)")
            return
        }
        #expect(recording.change == .created)
        #expect(recording.entryCount == 5)
        #expect(recording.description.contains("(new, 5 notifications)"))
        #expect(file.path == scratch.path + "/onboarding/dose-reminder.golden.json")

        var second = RecordFactory(seed: 2)
        #expect(try file.verify(second.scenario(), environment: .empty) == .matched)
        // With the record variable set, a matching file is left alone.
        #expect(try file.verify(second.scenario(), environment: GoldenEnvironment(["PUSHMOCK_RECORD_GOLDEN": "1"])) == .matched)
    }

    @Test("a difference is reported and the file kept, unless PUSHMOCK_RECORD_GOLDEN=1 re-records it")
    func mismatchAndRerecord() throws {
        let scratch = ScratchDirectory()
        defer { scratch.cleanup() }
        let file = try GoldenFile(named: "dose-reminder", directory: scratch.path)
        var golden = RecordFactory(seed: 1)
        try file.write(GoldenDocument(records: golden.scenario(title: "Time for your BPC-157")))
        let original = try String(contentsOfFile: file.path, encoding: .utf8)

        var changed = RecordFactory(seed: 2)
        let records = changed.scenario(title: "Time for your {{compound_name}}")
        for setting in [nil, "missing"] as [String?] {
            let environment = GoldenEnvironment(setting.map { ["PUSHMOCK_RECORD_GOLDEN": $0] } ?? [:])
            guard case .mismatched(let mismatch) = try file.verify(records, environment: environment) else {
                Issue.record("expected a mismatch with \(setting ?? "no setting")")
                continue
            }
            #expect(mismatch.differences.count == 2)
            #expect(try String(contentsOfFile: file.path, encoding: .utf8) == original)
        }

        let outcome = try file.verify(records, environment: GoldenEnvironment(["PUSHMOCK_RECORD_GOLDEN": "1"]))
        guard case .recorded(let recording) = outcome, case .updated(let mismatch) = recording.change else {
            Issue.record("expected a re-recording, got \(outcome)")
            return
        }
        #expect(mismatch.differences.count == 2)
        #expect(recording.description.contains("Re-recorded golden file"))
        #expect(try file.verify(records, environment: .empty) == .matched)
    }

    @Test("nothing is written when recording is refused in CI")
    func refusedInCIWritesNothing() throws {
        let scratch = ScratchDirectory()
        defer { scratch.cleanup() }
        var factory = RecordFactory(seed: 1)
        let environment = GoldenEnvironment(["GITHUB_ACTIONS": "true", "PUSHMOCK_RECORD_GOLDEN": "1"])
        #expect(throws: GoldenError.self) {
            try GoldenFile.verify(factory.scenario(), named: "x", directory: scratch.path, environment: environment)
        }
        #expect(scratch.fileNames.isEmpty)
    }

    @Test("a hand-formatted file with the same content matches")
    func handFormattedFile() throws {
        let scratch = ScratchDirectory()
        defer { scratch.cleanup() }
        var factory = RecordFactory(seed: 1)
        let records = factory.scenario()
        let document = GoldenDocument(records: records)
        // Compact, members in another order: same JSON.
        let reordered: JSONValue = ["notifications": .array(document.entries), "version": 1, "format": "pushmock-golden"]
        let path = scratch.path + "/compact.golden.json"
        try reordered.compactString.write(toFile: path, atomically: false, encoding: .utf8)
        #expect(try GoldenFile.verify(records, path: path, environment: .empty) == .matched)
    }

    @Test("unreadable files: an error explaining why, or replaced when re-recording")
    func unreadableFile() throws {
        let scratch = ScratchDirectory()
        defer { scratch.cleanup() }
        var factory = RecordFactory(seed: 1)
        let records = factory.scenario()
        let file = try GoldenFile(named: "conflict", directory: scratch.path)
        try "<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> branch\n".write(toFile: file.path, atomically: false, encoding: .utf8)
        do {
            _ = try file.verify(records, environment: .empty)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidFile)
            #expect(error.description.contains("merge-conflict markers"))
        }
        let outcome = try file.verify(records, environment: GoldenEnvironment(["PUSHMOCK_RECORD_GOLDEN": "1"]))
        guard case .recorded(let recording) = outcome, case .replacedUnreadable = recording.change else {
            Issue.record("expected the file to be replaced, got \(outcome)")
            return
        }
        #expect(try file.verify(records, environment: .empty) == .matched)
    }

    @Test(
        "files that are not golden files of a known version",
        arguments: [
            (#"{"format":"something-else","version":1,"notifications":[]}"#, "is not a PushMock golden file"),
            (#"{"format":"pushmock-golden","version":2,"notifications":[]}"#, "has format version 2"),
            (#"{"format":"pushmock-golden","notifications":[]}"#, "no valid \"version\""),
            (#"{"format":"pushmock-golden","version":1}"#, "no \"notifications\" array"),
        ]
    )
    func unsupportedFiles(text: String, message: String) {
        do {
            _ = try GoldenDocument(parsing: text, path: "x.golden.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidFile)
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test(
        "golden file names cannot leave the directory",
        arguments: ["", "/etc/passwd", "../escape", "a/../../b", "a//b", "a b", "./a", "a/", "naïve"]
    )
    func invalidNames(name: String) {
        #expect(throws: GoldenError.self) {
            try GoldenFile(named: name, directory: "Recordings/golden")
        }
    }

    @Test("names get the extension once")
    func names() throws {
        #expect(try GoldenFile(named: "a", directory: "dir").path == "dir/a.golden.json")
        #expect(try GoldenFile(named: "a.golden.json", directory: "dir/").path == "dir/a.golden.json")
        #expect(try GoldenFile(named: "group/v1.2_x-y", directory: "dir").path == "dir/group/v1.2_x-y.golden.json")
    }

    @Test("the default directory is Recordings/golden in the package containing the test")
    func defaultDirectory() {
        let directory = GoldenFile.defaultDirectory(forSourceFile: #filePath)
        #expect(directory.hasSuffix("/Recordings/golden"))
        let root = String(directory.dropLast("/Recordings/golden".count))
        #expect(FileManager.default.fileExists(atPath: root + "/Package.swift"))
        #expect(
            GoldenFile.defaultDirectory(forSourceFile: "/nonexistent-\(UUID().uuidString)/Tests/x.swift").hasSuffix(
                "/Tests/Recordings/golden"))
    }

    // MARK: Atomic writes

    @Test("writes replace the file through a rename and leave no temporary files")
    func atomicWrite() throws {
        let scratch = ScratchDirectory()
        defer { scratch.cleanup() }
        let file = try GoldenFile(named: "atomic", directory: scratch.path)
        var factory = RecordFactory(seed: 1)
        try file.write(GoldenDocument(records: factory.scenario(title: "one")))
        let before = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? UInt64
        try file.write(GoldenDocument(records: factory.scenario(title: "two")))
        let after = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? UInt64
        #expect(before != nil && before != after, "the file was rewritten in place, not replaced")
        #expect(scratch.fileNames == ["atomic.golden.json"])
        #expect(try file.read()?.entries.first?["payload"] != nil)
        #expect(try String(contentsOfFile: file.path, encoding: .utf8).contains("\"two\""))
    }

    @Test("a failed write reports the error and leaves no temporary file behind")
    func failedWrite() throws {
        let scratch = ScratchDirectory()
        defer { scratch.cleanup() }
        // The target is a non-empty directory: the rename must fail.
        let target = scratch.path + "/blocked.golden.json"
        try FileManager.default.createDirectory(atPath: target + "/inside", withIntermediateDirectories: true)
        do {
            try GoldenFile(path: target).write(GoldenDocument(entries: []))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .fileSystem)
            #expect(error.description.contains("Could not rename"))
        }
        #expect(scratch.fileNames == ["blocked.golden.json"])
    }

    // MARK: assertGolden

    @Test("assertGolden: missing, recorded, matched and mismatched")
    func assertGoldenOutcomes() throws {
        let scratch = ScratchDirectory()
        defer { scratch.cleanup() }
        var factory = RecordFactory(seed: 1)
        let records = factory.scenario(title: "Time for your BPC-157")

        do {
            try assertGolden(records, named: "dose-reminder", directory: scratch.path, environment: .empty)
            Issue.record("expected a missing-file error")
        } catch {
            #expect(error.code == .missing)
            #expect(error.description.hasPrefix("No golden file at \(scratch.path)/dose-reminder.golden.json."))
        }

        let recorded = try assertGolden(
            records, named: "dose-reminder", directory: scratch.path, environment: GoldenEnvironment(["PUSHMOCK_RECORD_GOLDEN": "missing"]))
        guard case .recorded = recorded else {
            Issue.record("expected a recording")
            return
        }
        #expect(try assertGolden(records, named: "dose-reminder", directory: scratch.path, environment: .empty) == .matched)

        var other = RecordFactory(seed: 2)
        do {
            try assertGolden(
                other.scenario(title: "Time for your {{compound_name}}"), named: "dose-reminder", directory: scratch.path,
                environment: .empty)
            Issue.record("expected a mismatch")
        } catch {
            #expect(error.code == .mismatch)
            #expect(error.mismatch != nil)
            let report = error.description
            #expect(report.contains(#"~ [1].payload.aps.alert.title: "Time for your BPC-157" ≠ "Time for your {{compound_name}}""#))
            #expect(report.contains("--- \(scratch.path)/dose-reminder.golden.json\n+++ recorded\n"))
            #expect(report.contains("re-record with PUSHMOCK_RECORD_GOLDEN=1"))
            #expect(!report.contains("\u{1B}["))
            #expect(error.report(style: .colored).contains("\u{1B}[31m-"))
        }
    }
}
