import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of one journal: the live file at `path` and, after rotation, up to `keep` rotated
/// files beside it, `path.1` (the newest rotated) … `path.N` (the oldest) — the numbering
/// `logrotate` uses, so `ls`, `cat` and `zcat`-free tools read them in the expected order.
///
/// Sequence numbers continue across rotation: concatenating `path.N … path.1 path` gives one
/// journal in `seq` order.
package enum JournalFiles {
    /// The name of the `index`-th rotated file (1 = the newest).
    package static func rotatedPath(_ path: String, index: Int) -> String {
        "\(path).\(index)"
    }

    /// The indices of the rotated files that exist, ascending (newest first). Stops at the
    /// first gap, as rotation never leaves one.
    package static func rotatedIndices(_ path: String) -> [Int] {
        var indices: [Int] = []
        var index = 1
        while FileManager.default.fileExists(atPath: rotatedPath(path, index: index)) {
            indices.append(index)
            index += 1
        }
        return indices
    }

    /// Every file of the journal, oldest first: the rotated files from the highest number down,
    /// then the live file (if it exists).
    package static func allPaths(_ path: String) -> [String] {
        var paths = rotatedIndices(path).reversed().map { rotatedPath(path, index: $0) }
        if FileManager.default.fileExists(atPath: path) { paths.append(path) }
        return paths
    }

    /// Reads a journal with its rotated files, oldest first, as one: every decodable record
    /// and a report for each line that was not (its message names the file when it is a
    /// rotated one). A missing live file is not an error when rotated files exist.
    package static func readAll(
        path: String
    ) throws(JournalIOError) -> (records: [ExchangeRecord], problems: [JournalProblem]) {
        let paths = allPaths(path)
        if paths.isEmpty || paths == [path] {
            return try JournalReader.readAll(path: path)
        }
        var records: [ExchangeRecord] = []
        var problems: [JournalProblem] = []
        for file in paths {
            let (some, issues) = try JournalReader.readAll(path: file)
            records.append(contentsOf: some)
            problems.append(
                contentsOf: issues.map { problem in
                    var named = problem
                    if file != path { named.message = "\(file): \(problem.message)" }
                    return named
                }
            )
        }
        return (records, problems)
    }
}

extension JournalFiles {
    /// Makes room for a new live file: deletes the oldest rotated file beyond `keep`, renames
    /// `path.i` to `path.(i+1)` from the oldest down, then `path` to `path.1` (or deletes it when
    /// `keep` is 0). Files missing along the way are skipped.
    package static func shift(_ path: String, keep: Int) throws(JournalIOError) {
        let manager = FileManager.default
        // Everything at or beyond `keep` goes (a smaller `keep` than last run trims the rest).
        var index = max(keep, 1)
        while keep > 0, manager.fileExists(atPath: rotatedPath(path, index: index)) {
            if index >= keep { try removeFile(rotatedPath(path, index: index)) }
            index += 1
        }
        if keep == 0 {
            try removeFile(path)
            return
        }
        for index in stride(from: keep - 1, through: 1, by: -1) where manager.fileExists(atPath: rotatedPath(path, index: index)) {
            try move(rotatedPath(path, index: index), rotatedPath(path, index: index + 1))
        }
        try move(path, rotatedPath(path, index: 1))
    }

    private static func removeFile(_ file: String) throws(JournalIOError) {
        if unlink(file) != 0, errno != ENOENT {
            throw JournalIOError(operation: .rotate, path: file, code: errno)
        }
    }

    private static func move(_ from: String, _ to: String) throws(JournalIOError) {
        if rename(from, to) != 0, errno != ENOENT {
            throw JournalIOError(operation: .rotate, path: from, code: errno, detail: "renaming to \(to)")
        }
    }
}
