import COpenSSL

/// One OpenSSL `SSL_CTX`: the protocol versions, the trust store or the certificate and key
/// every connection made from it uses. Used on one event loop only (``PerLoopContexts``);
/// freed once, when the last reference goes (connections made from it hold OpenSSL's own
/// reference, so it may go before them).
final class OpenSSLContext {
    let pointer: OpaquePointer

    private init(method: OpaquePointer?) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(method) else {
            throw .configuration("cannot create a TLS context: \(OpenSSLErrorQueue.drain())")
        }
        pointer = context
        // TLS 1.2 and 1.3 only (what Debian's OpenSSL configuration allows too).
        _ = pagebench_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION)
        pagebench_SSL_CTX_release_buffers(context)
        // No renegotiation (as swift-nio-ssl's default): a TLS 1.2 peer that asks for one
        // gets the no_renegotiation alert.
        pagebench_SSL_CTX_refuse_renegotiation(context)
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    /// A client context that verifies the server as `verification` says.
    ///
    /// - Throws: ``TLSError`` when the CA file (or the system's trust store) cannot be loaded.
    static func client(_ verification: TLSClientContext.Verification) throws(TLSError) -> OpenSSLContext {
        let context = try OpenSSLContext(method: TLS_client_method())
        OpenSSLErrorQueue.clear()
        switch verification {
        case .none:
            SSL_CTX_set_verify(context.pointer, SSL_VERIFY_NONE, nil)
        case .systemTrustStore:
            // Loading the whole bundle (/etc/ssl/certs/ca-certificates.crt) costs a parse of
            // every certificate in it (results/tls-openssl.md), and a context is made per event
            // loop. The hashed certificate directory (update-ca-certificates keeps one) is read
            // lazily instead: only the roots a verification needs. The bundle where there is
            // no such directory, or where SSL_CERT_FILE names one.
            let loaded =
                SystemTrustStore.hasHashedDirectory
                ? SSL_CTX_set_default_verify_dir(context.pointer) : SSL_CTX_set_default_verify_paths(context.pointer)
            guard loaded == 1 else {
                throw .configuration("cannot load the system's trusted certificates: \(OpenSSLErrorQueue.drain())")
            }
            SSL_CTX_set_verify(context.pointer, SSL_VERIFY_PEER, nil)
        case .caFile(let path):
            guard SSL_CTX_load_verify_locations(context.pointer, path, nil) == 1 else {
                throw .configuration("cannot load the CA file '\(path)': \(OpenSSLErrorQueue.drain())")
            }
            SSL_CTX_set_verify(context.pointer, SSL_VERIFY_PEER, nil)
        }
        return context
    }

    /// A server context presenting the PEM certificate chain (leaf first) and its PEM key.
    ///
    /// - Throws: ``TLSError`` for a file that is not PEM, or a key that does not belong to
    ///   the certificate.
    static func server(certificateChainFile: String, keyFile: String) throws(TLSError) -> OpenSSLContext {
        let context = try OpenSSLContext(method: TLS_server_method())
        OpenSSLErrorQueue.clear()
        guard SSL_CTX_use_certificate_chain_file(context.pointer, certificateChainFile) == 1 else {
            throw .configuration(
                "cannot load the certificate chain '\(certificateChainFile)': \(OpenSSLErrorQueue.drain())"
            )
        }
        guard SSL_CTX_use_PrivateKey_file(context.pointer, keyFile, SSL_FILETYPE_PEM) == 1 else {
            if OpenSSLErrorQueue.oldestReason(is: X509_R_KEY_VALUES_MISMATCH) {
                OpenSSLErrorQueue.clear()
                throw .configuration(
                    "the private key '\(keyFile)' does not belong to the certificate '\(certificateChainFile)'"
                )
            }
            throw .configuration("cannot load the private key '\(keyFile)': \(OpenSSLErrorQueue.drain())")
        }
        guard SSL_CTX_check_private_key(context.pointer) == 1 else {
            OpenSSLErrorQueue.clear()
            throw .configuration(
                "the private key '\(keyFile)' does not belong to the certificate '\(certificateChainFile)'"
            )
        }
        return context
    }
}
