import Foundation
import PagebenchTestSupport

/// A root CA and an intermediate CA it signed, made with the openssl command in a temporary
/// directory, that issue leaf certificates with chosen names and validity dates
/// (`openssl ca -startdate/-enddate`: a certificate that expired in 2020, one not valid
/// before 2090) for the certificate-path tests.
struct TestAuthority: Sendable {
    /// A leaf certificate and its key, with the chain file a server presents.
    struct Leaf: Sendable {
        /// The PEM chain a server presents: the leaf, then the intermediate when it is included.
        let chain: String
        let key: String
    }

    let directory: String
    /// The root's certificate (PEM): the only certificate a client is given to trust.
    var root: String { directory + "/root.pem" }
    var intermediate: String { directory + "/intermediate.pem" }

    /// For localhost and 127.0.0.1, signed by the intermediate, the chain includes it.
    private(set) var throughIntermediate: Leaf!
    /// The same, but the server presents the leaf alone.
    private(set) var missingIntermediate: Leaf!
    /// Valid only on 1 January 2020.
    private(set) var expired: Leaf!
    /// Valid from 2090.
    private(set) var notYetValid: Leaf!
    /// For `*.example.com`.
    private(set) var wildcard: Leaf!
    /// For `w*.example.com`, a partial wildcard.
    private(set) var partialWildcard: Leaf!

    /// Made once per test process (openssl ca keeps one database: the leaves are all made here,
    /// not by tests running in parallel).
    static let shared = Result { try TestAuthority() }

    private init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pagebench-ca-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "".write(toFile: directory + "/index.txt", atomically: true, encoding: .utf8)
        try "1000\n".write(toFile: directory + "/serial", atomically: true, encoding: .utf8)
        try Self.configuration.write(toFile: directory + "/ca.cnf", atomically: true, encoding: .utf8)
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
            directory + "/root.key",
            "-out", root, "-days", "3", "-subj", "/CN=pagebench test root", "-addext",
            "basicConstraints=critical,CA:true",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        try request(name: "intermediate", subject: "/CN=pagebench test intermediate")
        try sign(name: "intermediate", issuer: "root", extensions: "intermediate", dates: nil, out: intermediate)
        throughIntermediate = try leaf("through-intermediate")
        missingIntermediate = try leaf("missing-intermediate", includeIntermediate: false)
        expired = try leaf("expired", dates: ("20200101000000Z", "20200102000000Z"))
        notYetValid = try leaf("not-yet-valid", dates: ("20900101000000Z", "20900102000000Z"))
        wildcard = try leaf("wildcard", names: "DNS:*.example.com")
        partialWildcard = try leaf("partial-wildcard", names: "DNS:w*.example.com")
    }

    /// A leaf for `names` (subjectAltName entries such as `DNS:*.example.com`), signed by the
    /// intermediate (its chain file includes the intermediate unless `includeIntermediate`
    /// is false) or by the root; valid now, or between `dates` (`YYYYMMDDHHMMSSZ`).
    private func leaf(
        _ name: String,
        names: String = "DNS:localhost,IP:127.0.0.1",
        byIntermediate: Bool = true,
        includeIntermediate: Bool = true,
        dates: (start: String, end: String)? = nil
    ) throws -> Leaf {
        try request(name: name, subject: "/CN=\(name)")
        let certificate = directory + "/\(name).pem"
        try "[leaf]\nsubjectAltName = \(names)\nbasicConstraints = CA:false\n".write(
            toFile: directory + "/\(name).ext",
            atomically: true,
            encoding: .utf8
        )
        try sign(
            name: name,
            issuer: byIntermediate ? "intermediate" : "root",
            extensions: "leaf",
            dates: dates,
            out: certificate
        )
        var chain = try String(contentsOfFile: certificate, encoding: .utf8)
        if byIntermediate, includeIntermediate { chain += try String(contentsOfFile: intermediate, encoding: .utf8) }
        let chainFile = directory + "/\(name)-chain.pem"
        try chain.write(toFile: chainFile, atomically: true, encoding: .utf8)
        return Leaf(chain: chainFile, key: directory + "/\(name).key")
    }

    private func request(name: String, subject: String) throws {
        try openssl([
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
            directory + "/\(name).key",
            "-out", directory + "/\(name).csr", "-subj", subject,
        ])
    }

    private func sign(
        name: String,
        issuer: String,
        extensions: String,
        dates: (start: String, end: String)?,
        out: String
    ) throws {
        var arguments = [
            "ca", "-batch", "-notext", "-config", directory + "/ca.cnf", "-cert", directory + "/\(issuer).pem",
            "-keyfile",
            directory + "/\(issuer).key", "-in", directory + "/\(name).csr", "-out", out, "-extensions", extensions,
        ]
        if extensions == "leaf" { arguments += ["-extfile", directory + "/\(name).ext"] }
        if let dates {
            arguments += ["-startdate", dates.start, "-enddate", dates.end]
        } else {
            arguments += ["-days", "2"]
        }
        try openssl(arguments)
    }

    private func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("openssl \(arguments[0]) failed: \(String(decoding: said, as: UTF8.self))")
        }
    }

    /// `openssl ca`'s configuration: any subject, the extensions named per certificate.
    private static let configuration = """
        [ca]
        default_ca = authority
        [authority]
        database = index.txt
        new_certs_dir = .
        serial = serial
        default_md = sha256
        policy = anything
        copy_extensions = none
        unique_subject = no
        [anything]
        commonName = supplied
        [intermediate]
        basicConstraints = critical,CA:true,pathlen:0
        keyUsage = critical,keyCertSign,cRLSign
        [leaf]
        basicConstraints = CA:false

        """
}
