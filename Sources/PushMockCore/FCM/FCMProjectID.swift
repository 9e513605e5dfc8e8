/// A Firebase project id: the `{project}` of `projects/{project}/messages:send`, the
/// `project_id` of a service account, and the sender a token belongs to.
public struct FCMProjectID: StringIdentifier {
    public let rawValue: String

    public init(_ text: String) { self.rawValue = text }
}
