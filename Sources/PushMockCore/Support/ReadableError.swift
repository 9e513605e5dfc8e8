package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What failed and why, for errors whose own description was written for a debugger.
///
/// Foundation's file errors print as `Error Domain=NSCocoaErrorDomain Code=256 "(null)"
/// UserInfo={NSUnderlyingError=…}`, `JSONSerialization`'s as `Code=3840 "The data is not in the
/// correct format."`, and Codable's as dumps of coding-key structs. Anything a user reads (a CLI
/// message, a control API problem, a configuration error) goes through here instead, so it names
/// the file and the reason: `cannot read /tmp: Is a directory`.
package enum ReadableError {
    /// A description of `error` for people; errors that describe themselves well pass through.
    package static func description(of error: any Error) -> String {
        if let decoding = error as? DecodingError { return decoding.readableDescription }
        if let cocoa = error as? CocoaError { return describe(cocoa) }
        return "\(error)"
    }

    /// Why `error` happened, without the file it names: for messages that name the file
    /// themselves (`cannot read the users file \(path): \(reason: error)`).
    package static func reason(of error: any Error) -> String {
        guard let cocoa = error as? CocoaError else { return description(of: error) }
        return cocoa.code.rawValue == 3840 ? "not valid JSON: \(reason(cocoa))" : reason(cocoa)
    }

    /// `true` for the errors ``description(of:)`` rewrites: callers that print errors as they
    /// are (ArgumentParser's `exit(withError:)`) use it to decide whether to step in.
    package static func needsRewriting(_ error: any Error) -> Bool {
        error is DecodingError || error is CocoaError
    }

    private static func describe(_ error: CocoaError) -> String {
        let path = error.filePath ?? error.url?.path
        let reason = self.reason(error)
        switch error.code.rawValue {
        case 3840:
            // JSONSerialization: the useful part is the debug description ("Unexpected end of file …").
            return "not valid JSON: \(reason)"
        case 256...264:
            return path.map { "cannot read \($0): \(reason)" } ?? "cannot read the file: \(reason)"
        case 512...642:
            return path.map { "cannot write \($0): \(reason)" } ?? "cannot write the file: \(reason)"
        default:
            return path.map { "\($0): \(reason)" } ?? reason
        }
    }

    private static func reason(_ error: CocoaError) -> String {
        if let posix = error.underlying as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        if let debug = error.userInfo[NSDebugDescriptionErrorKey] as? String, !debug.isEmpty {
            return debug.hasSuffix(".") ? String(debug.dropLast()) : debug
        }
        switch error.code {
        case .fileReadNoSuchFile, .fileNoSuchFile: return "No such file or directory"
        case .fileReadNoPermission, .fileWriteNoPermission: return "Permission denied"
        case .fileReadInapplicableStringEncoding, .fileReadUnknownStringEncoding: return "not UTF-8 text"
        case .fileReadTooLarge: return "too large"
        case .fileWriteOutOfSpace: return "No space left on device"
        default: return "error \(error.code.rawValue)"
        }
    }
}

extension DefaultStringInterpolation {
    /// `"Error: \(readable: error)"`: ``ReadableError/description(of:)``.
    package mutating func appendInterpolation(readable error: any Error) {
        appendLiteral(ReadableError.description(of: error))
    }

    /// `"cannot read \(path): \(reason: error)"`: ``ReadableError/reason(of:)``.
    package mutating func appendInterpolation(reason error: any Error) {
        appendLiteral(ReadableError.reason(of: error))
    }
}

/// A file's bytes, or an error that says why not.
///
/// `FileManager.contents(atPath:)` answers `nil` for a missing file, a directory and a file
/// without read permission alike, so its callers could only say "cannot read"; users need the
/// reason to fix it.
package enum FileContents {
    /// The whole file at `path`.
    package static func read(_ path: String) throws(FileReadFailure) -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw FileReadFailure(path: path, reason: ReadableError.reason(of: error))
        }
    }
}

/// A file that could not be read: `cannot read <path>: <reason>`.
package struct FileReadFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path as the user gave it.
    package var path: String
    /// The system's reason: `No such file or directory`, `Is a directory`, `Permission denied`.
    package var reason: String

    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    package var description: String { "cannot read \(path): \(reason)" }
}
