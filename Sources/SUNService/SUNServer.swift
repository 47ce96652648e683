import Hummingbird
import Logging
import ServiceLifecycle

/// The HTTP face of a ``SUNVerifier``: `GET /verify` and `GET /metrics`, on Hummingbird, run in a
/// swift-service-lifecycle group that shuts down gracefully on SIGTERM and SIGINT (requests in
/// flight are answered, then the listener closes).
public enum SUNServer {
  /// The routes: `GET /verify?…` (JSON, ``SUNAnswer``), `GET /metrics` (Prometheus text) and
  /// `HEAD /metrics`. Anything else (another path, another method) is Hummingbird's 404.
  public static func router(_ verifier: SUNVerifier) -> Router<BasicRequestContext> {
    let router = Router()
    router.get("/verify") { request, _ -> Response in
      let answer = await verifier.answer(query: request.uri.query)
      var body = ByteBuffer()
      body.writeString(answer.json)
      body.writeString("\n")
      return Response(status: HTTPResponse.Status(code: answer.status),
                      headers: [.contentType: "application/json", .cacheControl: "no-store"],
                      body: ResponseBody(byteBuffer: body))
    }
    router.get("/metrics") { _, _ -> Response in
      var body = ByteBuffer()
      body.writeString(verifier.metrics.exposition())
      return Response(status: .ok, headers: metricsHeaders, body: ResponseBody(byteBuffer: body))
    }
    // A monitor's probe: GET's status and headers, no body (RFC 9110 §9.3.2). Not for /verify,
    // which records a counter: HEAD must be safe.
    router.head("/metrics") { _, _ -> Response in
      Response(status: .ok, headers: metricsHeaders)
    }
    return router
  }

  /// Why the service could not listen, or stopped, as the end of one line: a failed system call
  /// as the system's message for its errno ("Address already in use"), anything else as it
  /// describes itself. SwiftNIO's `IOError` describes itself as `bind(descriptor:ptr:bytes:):
  /// Address already in use) (errno: 98)`, an internal function's name and a stray parenthesis;
  /// its type is NIOCore's, which this module does not link, so the errno is read from the end of
  /// that description (pinned by SUNServeSurface's bind test against a real bind).
  public static func reason(for error: any Error) -> String {
    let text = "\(error)"
    guard text.hasSuffix(")"), let open = text.range(of: " (errno: ", options: .backwards),
          let code = Int32(text[open.upperBound...].dropLast()), code > 0 else { return text }
    return LibC.errorText(code)
  }

  /// The Prometheus text format's content type (version 0.0.4).
  static let metricsHeaders: HTTPFields = [.contentType: "text/plain; version=0.0.4; charset=utf-8"]

  /// Serves `verifier` on `host`:`port` (0: a free port) until SIGTERM or SIGINT.
  /// - Parameter listening: called once with the port bound, when requests are taken.
  public static func run(_ verifier: SUNVerifier, host: String, port: Int, logger: Logger,
                         listening: @escaping @Sendable (Int) -> Void) async throws {
    let app = Application(
      router: router(verifier),
      configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
      onServerRunning: { channel in listening(channel.localAddress?.port ?? port) },
      logger: logger)
    let group = ServiceGroup(configuration: ServiceGroupConfiguration(
      services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
  }
}
