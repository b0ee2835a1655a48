import HTTPTypes

extension HTTPFields {
    /// How many fields of one name a request has, with the value when it has exactly one.
    enum Sole: Equatable {
        case absent
        case one(String)
        case several
    }

    /// The `name` field when there is at most one, read in one pass with no array: the request rules ask on every
    /// request (`Authorization`, `X-Request-ID`, `Content-Length`, `Transfer-Encoding`), and most fields may come once.
    func sole(_ name: HTTPField.Name) -> Sole {
        var found: String?
        for field in self where field.name == name {
            guard found == nil else { return .several }
            found = field.value
        }
        return found.map(Sole.one) ?? .absent
    }
}
