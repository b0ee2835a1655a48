internal import IDTokens

/// Presigned GET URLs (AWS Signature Version 4 in the query string, `UNSIGNED-PAYLOAD`, only `host` signed), which
/// libcurl cannot make: the one piece of signing done here. A holder of the URL may GET that one object until it
/// expires; nothing else.
struct S3Presigner: Sendable {
    let settings: S3Settings

    /// The longest validity S3 accepts: 7 days.
    static let maximumExpiry = 604_800

    /// A URL for `GET` of `address` signed at `date` (`yyyyMMdd'T'HHmmss'Z'`, UTC) valid `expiresSeconds`.
    func presignedGET(_ address: S3Address, amzDate: String, expiresSeconds: Int) -> String {
        let date = String(amzDate.prefix(8))
        let scope = "\(date)/\(self.settings.region)/s3/aws4_request"
        let credentials = self.settings.credentials
        // Sorted by name, as the canonical query string must be.
        let query = [
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
            ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope)"),
            ("X-Amz-Date", amzDate),
            ("X-Amz-Expires", String(min(max(1, expiresSeconds), Self.maximumExpiry))),
            ("X-Amz-SignedHeaders", "host"),
        ].map { "\(S3URIEncoding.encode($0.0))=\(S3URIEncoding.encode($0.1))" }.joined(separator: "&")
        let canonicalRequest = ["GET", address.path, query, "host:\(address.authority)", "", "host", "UNSIGNED-PAYLOAD"]
            .joined(separator: "\n")
        let stringToSign = [
            "AWS4-HMAC-SHA256", amzDate, scope, SHA256Digest.hex(SHA256Digest.hash(Array(canonicalRequest.utf8))),
        ].joined(separator: "\n")
        var key = Array("AWS4\(credentials.secretAccessKey)".utf8)
        for part in [date, self.settings.region, "s3", "aws4_request"] {
            key = SHA256Digest.hmac(key: key, message: Array(part.utf8))
        }
        let signature = SHA256Digest.hex(SHA256Digest.hmac(key: key, message: Array(stringToSign.utf8)))
        return "\(address.url)?\(query)&X-Amz-Signature=\(signature)"
    }

    /// `yyyyMMdd'T'HHmmss'Z'` for seconds since 1970 (UTC).
    static func amzDate(secondsSince1970 seconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Howard Hinnant's days-to-civil.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)\(two(month))\(two(day))T\(two(secondOfDay / 3600))\(two(secondOfDay / 60 % 60))\(two(secondOfDay % 60))Z"
    }
}
