#if canImport(Glibc)
import Glibc
#endif

/// Where dev mode's certificate set (`certs.json`, and the signing key `mint-token` uses) is: the configured folder
/// (`DEV_CERTS_DIR`, `dev.certs_dir`) when it holds one; else, for the default `certs/dev`, the `certs/dev` of the
/// checkout above the executable, so a gateway built in the repository runs from any working directory.
public enum DevCertificates {
    /// The folder to read, or an error saying where it was looked for: dev mode cannot become ready without it.
    ///
    /// - Parameter executableFolder: the folder the running binary is in (nil: look only at `configured`).
    public static func locate(configured: String, executableFolder: String? = Executable.path.map(Executable.folder(of:))) throws(ConfigurationError) -> String {
        if Self.holdsCertificates(configured) { return configured }
        guard configured == Self.defaultFolder else {
            throw ConfigurationError(
                variable: "DEV_CERTS_DIR",
                message: "must be a folder holding the dev certificate set (certs.json): cannot read \(Self.absolute(configured))/certs.json"
            )
        }
        if let executableFolder, let found = Self.checkoutFolder(above: executableFolder) { return found }
        throw ConfigurationError(
            variable: "DEV_CERTS_DIR",
            message: "is not set and there is no \(Self.defaultFolder)/certs.json in the working directory (\(Self.workingDirectory ?? "?"))\(executableFolder.map { " or above the executable (\($0))" } ?? ""): dev mode needs the dev certificate set; run from the repository root, or set DEV_CERTS_DIR to the repository's \(Self.defaultFolder)"
        )
    }

    /// The `certs/dev` holding `certs.json` in `folder` or the nearest folder above it.
    static func checkoutFolder(above folder: String) -> String? {
        for candidate in Executable.foldersUp(from: folder) {
            let certificates = (candidate == "/" ? "" : candidate) + "/" + Self.defaultFolder
            if Self.holdsCertificates(certificates) { return certificates }
        }
        return nil
    }

    /// The dev App Check JWKS in the dev folder: the dev key's public half, as App Check serves its keys.
    public static let appCheckJWKSFile = "app-check-jwks.json"

    /// The default `dev.certs_dir`, relative to the working directory.
    static let defaultFolder = GatewayConfiguration().devCertsDirectory

    private static func holdsCertificates(_ folder: String) -> Bool {
        access(folder + "/certs.json", R_OK) == 0
    }

    /// A relative path prefixed with the working directory.
    private static func absolute(_ folder: String) -> String {
        folder.hasPrefix("/") ? folder : (Self.workingDirectory ?? ".") + "/" + folder
    }

    private static var workingDirectory: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
