import Foundation
import PushMockCore
public import PushMockJSON

/// What kind of problem a definition file has; each kind of file (route table, policy) has its
/// own codes beside these four.
public protocol DefinitionErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// The file does not exist or cannot be read.
    static var unreadableFile: Self { get }
    /// The file is not JSON.
    static var invalidJSON: Self { get }
    /// `version` is missing or not understood.
    static var unsupportedVersion: Self { get }
    /// A member is unknown, missing, of the wrong type or has an impossible value.
    static var invalidDefinition: Self { get }
}

/// Why a definition file (a route table: ``DeepLinkError``; a policy: ``PolicyError``) or a
/// piece of one could not be used.
///
/// The ``description`` names the file, the place in it and the offending value, e.g.
/// `policy.json: frequencyCaps[1].window: "7 days" is not a duration (use 7d, 24h, 90m, …)`.
public struct DefinitionFileError<Kind: DefinitionErrorCode>: Error, Sendable, Hashable, CustomStringConvertible {
    /// The codes of this kind of file (`DeepLinkError.Code.invalidPattern`).
    public typealias Code = Kind

    public var code: Code
    /// The file the definition came from, if any.
    public var file: String?
    /// Where in the definition, e.g. `routes[2].pattern`; empty for the whole document.
    public var location: String
    public var message: String

    public init(_ code: Code, _ message: String, location: String = "", file: String? = nil) {
        self.code = code
        self.message = message
        self.location = location
        self.file = file
    }

    public var description: String {
        [file, location.isEmpty ? nil : location, message].compactMap { $0 }.joined(separator: ": ")
    }

    /// The same error, attributed to `file`.
    func inFile(_ file: String) -> Self {
        var copy = self
        copy.file = file
        return copy
    }

    init(_ problem: DefinitionProblem) {
        let code: Code =
            switch problem.kind {
            case .syntax: .invalidJSON
            case .version: .unsupportedVersion
            case .content: .invalidDefinition
            }
        self.init(code, problem.message, location: problem.location)
    }
}

/// A document read from a definition file (a route table, a policy): the ways to read one —
/// from a file, text or bytes — all end in ``init(definition:)``, with errors that name the
/// file and the place in it.
public protocol DefinitionDocument {
    associatedtype ErrorCode: DefinitionErrorCode
    /// What the file is called in messages: "route table", "policy file".
    static var documentName: String { get }
    /// Reads the document from an already parsed JSON value.
    init(definition: JSONValue) throws(DefinitionFileError<ErrorCode>)
}

extension DefinitionDocument {
    /// Reads the file at `path`.
    public init(contentsOfFile path: String) throws(DefinitionFileError<ErrorCode>) {
        let bytes: Data
        do {
            bytes = try FileContents.read(path)
        } catch {
            throw DefinitionFileError(.unreadableFile, "cannot read the \(Self.documentName): \(error.reason)", file: path)
        }
        try self.init(parsing: bytes, file: path)
    }

    /// Parses JSON text.
    public init(parsing text: String) throws(DefinitionFileError<ErrorCode>) {
        try self.init(parsing: Array(text.utf8))
    }

    /// Parses JSON bytes.
    public init(parsing bytes: some Collection<UInt8>) throws(DefinitionFileError<ErrorCode>) {
        let document: JSONValue
        do {
            document = try DefinitionObject.parseDocument(bytes)
        } catch {
            throw DefinitionFileError(error)
        }
        try self.init(definition: document)
    }
}
