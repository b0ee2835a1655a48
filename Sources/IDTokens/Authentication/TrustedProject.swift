/// A Firebase project whose ID tokens the gateway accepts, and where its signing keys come from.
public struct TrustedProject: Sendable {
    public let rules: FirebaseClaimRules
    public let projectID: String
    public let certificates: CertificateStore

    public init(projectID: String, clockSkew: Double, certificates: CertificateStore) {
        self.projectID = projectID
        self.rules = FirebaseClaimRules(projectID: projectID, clockSkew: clockSkew)
        self.certificates = certificates
    }
}
