import Hummingbird
import Logging
import ServiceLifecycle

/// The HTTP face of a ``SUNVerifier``: `GET /verify` and `GET /metrics`, on Hummingbird, run in a
/// swift-service-lifecycle group that shuts down gracefully on SIGTERM and SIGINT (requests in
/// flight are answered, then the listener closes).
public enum SUNServer {
  /// The routes: `GET /verify?…` (JSON, ``SUNAnswer``), `GET /metrics` (Prometheus text).
  /// Anything else (another path, another method) is Hummingbird's 404.
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
      return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                      body: ResponseBody(byteBuffer: body))
    }
    return router
  }

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
