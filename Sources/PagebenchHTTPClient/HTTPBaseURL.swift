import Foundation
import PagebenchWire

/// A base URL as the HTTP clients take it: `http[s]://host[:port][/prefix]`, no query,
/// fragment or user; trailing slashes dropped. The one parser of ``HTTPStoreSource`` and
/// ``HTTPRequestClient``.
struct HTTPBaseURL: Sendable {
    /// `http` or `https`.
    let scheme: String
    /// The host to connect to (an IPv6 address without its brackets).
    let host: String
    let port: Int
    /// `host[:port]` as given: the `Host` header.
    let authority: String
    /// The path before every request path (`""` or `/v1`).
    let pathPrefix: String
    /// The URL without trailing slashes.
    let text: String

    /// Parses `url`; `schemes` are the ones accepted, and `schemeHint` says so when another is given.
    init(_ url: String, schemes: Set<String>, schemeHint: String) throws(HTTPSourceError) {
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        guard let scheme = schemes.first(where: { base.hasPrefix($0 + "://") }) else {
            throw .invalidTarget(url, schemeHint)
        }
        guard let parsed = URL(string: base), let host = parsed.host, !host.isEmpty, parsed.query == nil,
            parsed.fragment == nil, parsed.user == nil
        else {
            throw .invalidTarget(url, "it is not a URL with a host and no query")
        }
        let port = parsed.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { throw .invalidTarget(url, "port \(port) is not in 1...65535") }
        let afterScheme = base.dropFirst(scheme.count + 3)
        let authority = afterScheme.prefix { $0 != "/" }
        self.scheme = scheme
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        self.authority = String(authority)
        pathPrefix = String(afterScheme.dropFirst(authority.count))
        text = base
    }
}
