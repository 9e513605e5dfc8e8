/// Where the definition files named inside a decoded document come from (an expectation's
/// `deepLink.routes` given as a path). The default reads the file system; the control API
/// passes one that reads only under its `--checks-dir` directories, through the decoder's
/// `userInfo[.definitionFileReader]`.
package struct DefinitionFileReader: Sendable {
    private let readFile: @Sendable (String) throws -> [UInt8]?

    /// `read` returns the bytes, `nil` when the file cannot be read (the document's usual
    /// "cannot read" error follows), or throws to refuse: the error ends decoding as a
    /// ``DefinitionFileRefusal``.
    package init(_ read: @escaping @Sendable (_ path: String) throws -> [UInt8]?) {
        self.readFile = read
    }

    /// Any file the process can read.
    package static let fileSystem = DefinitionFileReader { path in DefinitionObject.readFile(path) }

    func read(_ path: String) throws(DefinitionFileRefusal) -> [UInt8]? {
        do {
            return try readFile(path)
        } catch {
            throw DefinitionFileRefusal(path: path, reason: error)
        }
    }
}

/// A reader refused a file a document named; `reason` is what the reader threw.
package struct DefinitionFileRefusal: Error {
    package var path: String
    package var reason: any Error
}

extension CodingUserInfoKey {
    /// A ``DefinitionFileReader`` for the paths inside the decoded document.
    package static let definitionFileReader = CodingUserInfoKey(rawValue: "PushMockToolkit.definitionFileReader")!
}

extension DefinitionDocument {
    /// Parses `bytes` read from `file` by someone else; errors name the file.
    package init(parsing bytes: some Collection<UInt8>, file: String) throws(DefinitionFileError<ErrorCode>) {
        do {
            try self.init(parsing: bytes)
        } catch {
            throw error.inFile(file)
        }
    }

    /// Reads the file at `path` through `reader`.
    init(contentsOfFile path: String, reader: DefinitionFileReader) throws(DefinitionFileReadError<ErrorCode>) {
        let bytes: [UInt8]?
        do {
            bytes = try reader.read(path)
        } catch {
            throw .refused(error)
        }
        guard let bytes else {
            throw .invalid(DefinitionFileError(.unreadableFile, "cannot read the \(Self.documentName)", file: path))
        }
        do {
            try self.init(parsing: bytes, file: path)
        } catch {
            throw .invalid(error)
        }
    }
}

/// Reading a definition file through a reader: refused, or read and found wanting.
enum DefinitionFileReadError<Code: DefinitionErrorCode>: Error {
    case refused(DefinitionFileRefusal)
    case invalid(DefinitionFileError<Code>)
}
