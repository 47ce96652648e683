// `--message TEMPLATE.json`: the message JSON with placeholders in its string values.
import NDEFJSON

/// The message JSON of docs/json-format.md with a ``Template`` in every string value.
///
/// The JSON is parsed once (NDEFJSON's strict parser); each string value (not the member
/// names) is parsed as a template. Rendering fills the templates and rebuilds the JSON value
/// tree, so a rendered value always stays one JSON string, whatever quotes or backslashes it
/// holds; the message is then built by NDEFJSON's ``NDEFJSON/message(fromJSON:)``.
public struct MessageJSONTemplate: Sendable {
  /// One string value of the JSON: where it is, its template, and whether it is a `uri` value
  /// (the only place `{mirror}` may stand).
  public struct StringValue: Sendable {
    /// `records[0].uri`.
    public var path: String
    public var template: Template
    public var isURI: Bool
  }

  indirect enum Node: Sendable {
    case value(JSONValue)
    /// A string value; `isURI` for a `uri` member's, rendered as a URL.
    case string(Template, isURI: Bool)
    case array([Node])
    case object([(String, Node)])
  }

  let root: Node
  /// Every string value, in document order.
  public let strings: [StringValue]

  /// Parses the template's JSON text.
  /// - Throws: ``TemplateError``: invalid JSON (column 0, with the byte offset in the reason), or
  ///   a bad placeholder with the string's path and its column.
  public init(parsing bytes: [UInt8]) throws(TemplateError) {
    let json: JSONValue
    do { json = try JSONParser.parse(bytes) } catch { throw TemplateError(column: 0, reason: error.description) }
    var strings: [StringValue] = []
    root = try Self.node(json, path: "", key: nil, strings: &strings)
    self.strings = strings
  }

  /// The column names used anywhere in the template.
  public var placeholders: Set<String> { strings.reduce(into: []) { $0.formUnion($1.template.placeholders) } }

  private static func node(_ value: JSONValue, path: String, key: String?, strings: inout [StringValue]) throws(TemplateError) -> Node {
    switch value {
    case .string(let text):
      let template: Template
      do { template = try Template(text) } catch {
        throw TemplateError(path: path.isEmpty ? "the top-level string" : path, column: error.column, reason: error.reason)
      }
      strings.append(StringValue(path: path, template: template, isURI: key == "uri"))
      return .string(template, isURI: key == "uri")
    case .array(let items):
      var nodes: [Node] = []
      for (index, item) in items.enumerated() {
        nodes.append(try node(item, path: "\(path)[\(index)]", key: nil, strings: &strings))
      }
      return .array(nodes)
    case .object(let members):
      var nodes: [(String, Node)] = []
      for (name, member) in members {
        nodes.append((name, try node(member, path: path.isEmpty ? name : "\(path).\(name)", key: name, strings: &strings)))
      }
      return .object(nodes)
    case .null, .bool, .number:
      return .value(value)
    }
  }

  /// The JSON value for one tag: each string rendered by ``Template/render(fields:uid:sequence:mirror:)``.
  func render(fields: [String: String], uid: String, sequence: Int, mirror: String?) throws(TemplateRenderError) -> JSONValue {
    func fill(_ node: Node) throws(TemplateRenderError) -> JSONValue {
      switch node {
      case .value(let value): return value
      case .string(let template, let isURI):
        // A `uri` value is a URL: its values are percent-encoded, and it must be a URI.
        return .string(try template.render(fields: fields, uid: uid, sequence: sequence, mirror: mirror,
                                           inURL: isURI))
      case .array(let nodes):
        var items: [JSONValue] = []
        for node in nodes { items.append(try fill(node)) }
        return .array(items)
      case .object(let members):
        var out: [(String, JSONValue)] = []
        for (name, node) in members { out.append((name, try fill(node))) }
        return .object(out)
      }
    }
    return try fill(root)
  }
}
