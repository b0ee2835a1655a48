import Foundation

/// The part of an `accounts:lookup` answer the rule reads: the first user's `disabled` and `validSince`
/// (seconds since the epoch, as a string); no `users` (or an empty list) means the account was deleted.
enum LookupResponse {
    private struct Body: Decodable {
        var users: [User]?
    }

    private struct User: Decodable {
        var disabled: Bool?
        var validSince: String?
    }

    static func state(from body: [UInt8]) throws(AccountLookupError) -> UserAccountState {
        let decoded: Body
        do {
            decoded = try JSONDecoder().decode(Body.self, from: Data(body))
        } catch {
            throw .invalidResponse("not an accounts:lookup answer")
        }
        guard let user = decoded.users?.first else { return .deleted }
        var validSince: Double?
        if let text = user.validSince {
            guard let seconds = Int64(text), seconds >= 0 else { throw .invalidResponse("validSince is not whole seconds") }
            validSince = Double(seconds)
        }
        return .active(disabled: user.disabled ?? false, validSince: validSince)
    }
}
