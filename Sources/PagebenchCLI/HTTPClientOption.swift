import ArgumentParser
import PagebenchHTTP

/// `--http-client lean|async-http-client`: which client a `--target` run or `http-bench`
/// sends its requests with (``HTTPStoreSource/Client``).
public enum HTTPClientOption: String, ExpressibleByArgument, CaseIterable, Sendable {
    case lean
    case asyncHTTPClient = "async-http-client"

    var client: HTTPStoreSource.Client {
        switch self {
        case .lean: .lean
        case .asyncHTTPClient: .asyncHTTPClient
        }
    }

    static let help = ArgumentHelp(
        "HTTP client for --target: lean (our own HTTP/1.1 client on SwiftNIO, the default) or async-http-client (swift-server/async-http-client; about 4x the client CPU per small page).",
        valueName: "client")
}
