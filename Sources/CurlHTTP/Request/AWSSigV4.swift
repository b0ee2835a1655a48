/// What libcurl needs to sign a request with AWS Signature Version 4 (`CURLOPT_AWS_SIGV4` with
/// `CURLOPT_USERNAME`/`CURLOPT_PASSWORD`): it adds `X-Amz-Date` and `Authorization` and signs `Host`,
/// `X-Amz-Date` and every header the request sets. The payload hash S3 wants in `x-amz-content-sha256` is the
/// caller's to send as a header (libcurl 7.88 does not add it).
public struct AWSSigV4: Sendable, Hashable, CustomStringConvertible {
    /// The provider string, `aws:amz:<region>:<service>`, e.g. `aws:amz:us-east-1:s3`.
    public var provider: String
    /// The access key id (sent in the clear in the `Authorization` credential scope).
    public var accessKeyID: String
    /// The secret access key; never sent, never printed.
    public var secretAccessKey: String

    /// Signing as `aws:amz:<region>:<service>` with this key pair.
    public init(region: String, service: String, accessKeyID: String, secretAccessKey: String) {
        self.provider = "aws:amz:\(region):\(service)"
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }

    /// The provider and key id; the secret redacted.
    public var description: String { "AWSSigV4(\(self.provider), key: \(self.accessKeyID), secret: <redacted>)" }
}
