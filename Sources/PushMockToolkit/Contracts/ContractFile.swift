import Foundation
internal import PushMockCore
public import PushMockJSON

/// Payload contracts: a JSON Schema per notification type (the push-design template's
/// `notificationType`, `entityId`, `deepLinkPath`), checked against every push
/// (`docs/payload-contracts.md`).
///
/// ```json
/// {"version": 1, "name": "template",
///  "typeField": "notificationType",
///  "data": ["$.message.data", "$.data", "$[0].data", "$"],
///  "requireContract": true,
///  "contracts": [
///    {"name": "order.confirmed", "types": ["order.confirmed"],
///     "schema": {"type": "object", "required": ["entityId", "deepLinkPath"],
///                "properties": {"deepLinkPath": {"pattern": "^/orders/"}}}},
///    {"name": "android-channel", "match": {"platform": "fcm"}, "target": "$.message.android",
///     "schema": {"required": ["notification"]}}]}
/// ```
public struct ContractFile: Sendable, Hashable, DefinitionDocument {
    public static let documentName = "contract file"

    /// One schema and the pushes it governs.
    public struct Contract: Sendable, Hashable {
        public let name: String
        /// Notification types (the value at ``ContractFile/typeField`` in the app data); `nil`
        /// for every push.
        public let types: [String]?
        /// A further condition on the push (platform, push type, …).
        public let match: PolicyMatch?
        /// What is validated: the value at this path of the request body; `nil` for the app
        /// data (``ContractFile/dataPaths``).
        public let target: JSONPath?
        public let schema: JSONSchema

        public init(name: String, types: [String]? = nil, match: PolicyMatch? = nil, target: JSONPath? = nil, schema: JSONSchema) {
            self.name = name
            self.types = types
            self.match = match
            self.target = target
            self.schema = schema
        }
    }

    public let name: String?
    /// The member of the app data naming the notification type (default `notificationType`).
    public let typeField: String
    /// Where the app data is, the first that exists: FCM `message.data`, a `data` member (APNs
    /// custom key, Expo message), an Expo message's `data` (each message of a request of several
    /// is checked on its own, as an array of one), the whole APNs payload.
    public let dataPaths: [JSONPath]
    /// A push whose type no contract names is a violation (default `false`).
    public let requireContract: Bool
    public let contracts: [Contract]
    /// Shared schemas the contracts may `$ref` by their `$id`: the file's `schemas`, plus the
    /// `*.schema.json` files beside it when read with ``init(contentsOfFile:)``.
    public let schemas: JSONSchemaRegistry

    public static let defaultDataPaths = ["$.message.data", "$.data", "$[0].data", "$"]

    public init(
        name: String? = nil, typeField: String = "notificationType", dataPaths: [JSONPath]? = nil, requireContract: Bool = false,
        contracts: [Contract], schemas: JSONSchemaRegistry = JSONSchemaRegistry()
    ) {
        self.name = name
        self.typeField = typeField
        self.dataPaths = dataPaths ?? Self.defaultDataPaths.map { try! JSONPath($0) }
        self.requireContract = requireContract
        self.contracts = contracts
        self.schemas = schemas
    }

    /// Reads the contract file at `path`; every `*.schema.json` file in its directory is
    /// loaded as a shared schema, so contracts can `$ref` it by its `$id` (or its file name,
    /// relative to the `file://` URL of the contract file).
    public init(contentsOfFile path: String) throws(ContractError) {
        let bytes: Data
        do {
            bytes = try FileContents.read(path)
        } catch {
            throw ContractError(.unreadableFile, "cannot read the \(Self.documentName): \(error.reason)", file: path)
        }
        let directory = (path as NSString).deletingLastPathComponent
        let registry: JSONSchemaRegistry
        do {
            registry = try JSONSchemaRegistry(directory: directory.isEmpty ? "." : directory)
        } catch {
            throw ContractError(.invalidSchema, error.message, location: error.location, file: path)
        }
        let document: JSONValue
        do {
            document = try DefinitionObject.parseDocument(bytes)
        } catch {
            throw ContractError(error).inFile(path)
        }
        do {
            try self.init(definition: document, registry: registry, uri: URL(fileURLWithPath: path).absoluteString)
        } catch {
            throw error.inFile(path)
        }
    }

    public init(definition: JSONValue) throws(ContractError) {
        try self.init(definition: definition, registry: JSONSchemaRegistry(), uri: "")
    }

    /// `registry`: shared schemas beside the file's own `schemas`; `uri`: the file's location,
    /// the base URI of contract schemas without `$id`.
    package init(definition: JSONValue, registry: JSONSchemaRegistry, uri: String) throws(ContractError) {
        do {
            let root = try DefinitionObject(
                definition, at: "",
                allowed: ["version", "name", "description", "typeField", "data", "requireContract", "contracts", "schemas"])
            try root.checkVersion(PushMockToolkit.formatVersion)
            var dataPaths: [JSONPath]?
            if let texts = try root.strings("data") {
                dataPaths = try texts.enumerated().map { try DefinitionObject.path($0.element, at: "\(root.place("data"))[\($0.offset)]") }
            }
            var registry = registry
            for entry in try root.array("schemas") ?? [] {
                do {
                    try registry.add(entry.value)
                } catch {
                    throw ContractError(.invalidSchema, error.message, location: entry.location + error.location)
                }
            }
            var contracts: [Contract] = []
            var names = Set<String>()
            for entry in try root.array("contracts") ?? [] {
                let object = try DefinitionObject(
                    entry.value, at: entry.location, allowed: ["name", "description", "types", "match", "target", "schema"])
                let name = try object.string("name") ?? entry.location
                // Findings are keyed by the name (`contract.<name>.<keyword>`): an empty one names nothing.
                guard !name.isEmpty else { throw DefinitionProblem(object.place("name"), "a contract's name cannot be empty") }
                guard names.insert(name).inserted else {
                    throw DefinitionProblem(object.place("name"), "another contract is named \"\(name)\"")
                }
                guard let schemaValue = object.value("schema") else { throw DefinitionProblem(object.place("schema"), "missing") }
                let schema: JSONSchema
                do {
                    schema = try JSONSchema(schemaValue, registry: registry, uri: uri)
                } catch {
                    throw ContractError(.invalidSchema, error.message, location: object.place("schema") + error.location)
                }
                contracts.append(
                    Contract(
                        name: name,
                        types: try object.strings("types"),
                        match: try object.value("match").map { try PolicyMatch.read($0, at: object.place("match"), allowType: false) },
                        target: try object.string("target").map { try DefinitionObject.path($0, at: object.place("target")) },
                        schema: schema))
            }
            self.init(
                name: try root.string("name"),
                typeField: try root.string("typeField") ?? "notificationType",
                dataPaths: dataPaths,
                requireContract: try root.bool("requireContract") ?? false,
                contracts: contracts, schemas: registry)
        } catch let problem as DefinitionProblem {
            throw ContractError(problem)
        } catch let error as ContractError {
            throw error
        } catch {
            throw ContractError(.invalidDefinition, "\(readable: error)")
        }
    }
}

extension ContractFile: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        do {
            try self.init(definition: try container.decode(JSONValue.self))
        } catch let error as ContractError {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }
}

/// Why a contract file could not be used.
public typealias ContractError = DefinitionFileError<ContractErrorCode>

/// What kind of problem; compare with the static members.
public struct ContractErrorCode: DefinitionErrorCode {
    enum Value: String, Hashable, Sendable {
        case unreadableFile = "unreadable-file"
        case invalidJSON = "invalid-json"
        case unsupportedVersion = "unsupported-version"
        case invalidDefinition = "invalid-definition"
        case invalidSchema = "invalid-schema"
    }

    let value: Value

    public static let unreadableFile = Self(value: .unreadableFile)
    public static let invalidJSON = Self(value: .invalidJSON)
    public static let unsupportedVersion = Self(value: .unsupportedVersion)
    public static let invalidDefinition = Self(value: .invalidDefinition)
    /// A contract's schema is not a usable JSON Schema.
    public static let invalidSchema = Self(value: .invalidSchema)

    public var description: String { value.rawValue }
}
