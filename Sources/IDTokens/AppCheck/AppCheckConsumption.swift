/// The wire format of consuming a limited-use App Check token (the Admin SDK's `verifyToken(token, {consume: true})`):
/// `POST <api>/v1beta/projects/<project id>:verifyAppCheckToken` with `{"app_check_token":"<token>"}`, answered
/// with an object whose `alreadyConsumed` is `true` when the token was used before (absent or `false` otherwise).
/// Pure: the gateway does the HTTP.
public enum AppCheckConsumption {
    /// The request path under the API's base URL.
    public static func path(projectID: String) -> String {
        "/v1beta/projects/" + projectID + ":verifyAppCheckToken"
    }

    /// The request body.
    public static func requestBody(token: some StringProtocol) -> [UInt8] {
        Array(("{\"app_check_token\":" + JSONWriter.quoted(String(token)) + "}").utf8)
    }

    /// Whether the answer says the token was used before; nil when the answer is not a strict JSON object or its
    /// `alreadyConsumed` is not a boolean.
    public static func alreadyConsumed(responseBody: [UInt8]) -> Bool? {
        responseBody.withUnsafeBufferPointer { buffer -> Bool? in
            guard let members = try? JSONParser.parseObject(buffer, range: 0..<buffer.count) else { return nil }
            let wanted = Array("alreadyConsumed".utf8)
            guard let member = members.first(where: { member in
                KnownMemberSlots.withName(of: member, in: buffer) { $0.elementsEqual(wanted) }
            }) else { return false }
            switch member.kind {
            case .true: return true
            case .false: return false
            default: return nil
            }
        }
    }
}
