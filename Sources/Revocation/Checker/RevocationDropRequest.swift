import Foundation

/// The body of `POST /admin/v1/revocations`: `{"uid": "<uid>"}` or `{"uids": ["<uid>", …]}` (1 to 1000 uids, each 1
/// to 128 characters), nothing else.
public enum RevocationDropRequest {
    /// The most uids one request may name.
    public static let maximumUIDs = 1000

    /// Why a body is refused; `reason` is a stable snake_case label, `message` a sentence for the caller.
    public struct Problem: Error, Sendable, Equatable {
        public let reason: String
        public let message: String
    }

    /// The uids `body` names, in order, without duplicates.
    public static func uids(from body: [UInt8]) throws(Problem) -> [String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw Problem(reason: "body_not_json_object", message: "The body must be a JSON object: {\"uid\": \"...\"} or {\"uids\": [\"...\"]}.")
        }
        guard object.count == 1, let key = object.keys.first, key == "uid" || key == "uids" else {
            throw Problem(reason: "body_fields", message: "The body must have exactly one field, \"uid\" or \"uids\".")
        }
        var uids: [String]
        if key == "uid" {
            guard let uid = object["uid"] as? String else { throw Problem(reason: "uid_type", message: "\"uid\" must be a string.") }
            uids = [uid]
        } else {
            guard let list = object["uids"] as? [Any], let strings = list as? [String] else {
                throw Problem(reason: "uids_type", message: "\"uids\" must be an array of strings.")
            }
            guard (1...Self.maximumUIDs).contains(strings.count) else {
                throw Problem(reason: "uids_count", message: "\"uids\" must hold 1 to \(Self.maximumUIDs) uids.")
            }
            uids = strings
        }
        guard uids.allSatisfy({ (1...128).contains($0.count) }) else {
            throw Problem(reason: "uid_length", message: "A uid must be 1 to 128 characters long.")
        }
        var seen = Set<String>()
        uids = uids.filter { seen.insert($0).inserted }
        return uids
    }
}
