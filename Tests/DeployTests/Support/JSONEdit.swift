import Foundation

/// One step into a JSON value: an object member or an array element.
enum JSONStep: CustomStringConvertible {
    case key(String)
    case index(Int)

    var description: String {
        switch self {
        case .key(let key): key
        case .index(let index): "[\(index)]"
        }
    }

    /// The dotted path the functions name in their errors: `hero.name`, `event.data.keywords[2]`.
    static func fieldPath(_ steps: [JSONStep]) -> String {
        var result = ""
        for step in steps {
            switch step {
            case .key(let key): result += (result.isEmpty ? "" : ".") + key
            case .index(let index): result += "[\(index)]"
            }
        }
        return result
    }
}

/// Edits of JSON values as JSONSerialization makes and takes them (`[String: Any]`, `[Any]`, scalars, `NSNull`).
enum JSONEdit {
    /// `root` with the value at `path` replaced by `value`, or removed when `value` is nil.
    static func setting(_ root: Any, at path: [JSONStep], to value: Any?) -> Any {
        guard let step = path.first else { return value ?? NSNull() }
        let rest = Array(path.dropFirst())
        switch step {
        case .key(let key):
            var object = root as? [String: Any] ?? [:]
            if rest.isEmpty {
                object[key] = value
            } else {
                object[key] = self.setting(object[key] ?? [String: Any](), at: rest, to: value)
            }
            return object
        case .index(let index):
            var items = root as? [Any] ?? []
            guard items.indices.contains(index) else { return items }
            if rest.isEmpty {
                if let value { items[index] = value } else { items.remove(at: index) }
            } else {
                items[index] = self.setting(items[index], at: rest, to: value)
            }
            return items
        }
    }

    static func bytes(_ value: Any) -> [UInt8] {
        (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])).map { [UInt8]($0) } ?? []
    }
}
