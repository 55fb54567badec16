import ArgumentParser
import PagebenchHTTPClient
import PagebenchWire

/// `--http-client lean|async-http-client`: which client a `--target` run or `http-bench`
/// sends its requests with (``HTTPStoreSource/Client``).
package enum HTTPClientOption: String, ExpressibleByArgument, CaseIterable, Sendable {
    case lean
    case asyncHTTPClient = "async-http-client"

    var client: HTTPStoreSource.Client {
        switch self {
        case .lean: .lean
        case .asyncHTTPClient: .asyncHTTPClient
        }
    }

    /// A usage error (exit 64) when this build lacks the client.
    func validate() throws {
        guard client.isAvailable else {
            throw ValidationError("--http-client \(rawValue): \(HTTPStoreSource.Client.asyncHTTPClientBuildHint)")
        }
    }

    static let help = ArgumentHelp(
        "HTTP client for --target: lean (our own HTTP/1.1 client on SwiftNIO, the default) or async-http-client (swift-server/async-http-client, more client CPU per small page; only in a build with `--traits AsyncHTTPClientSupport`).",
        valueName: "client"
    )
}
