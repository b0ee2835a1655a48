import Foundation

/// A parsed YAML value (what `Yams.load` returns), navigated by key and index. A missing key or index gives a
/// value whose `exists` is false, so chains like `doc["spec"]["template"]["spec"]` read naturally.
struct YAMLValue: CustomStringConvertible {
    let raw: Any?

    init(_ raw: Any?) {
        self.raw = raw
    }

    var exists: Bool { self.raw != nil }
    var isNull: Bool { self.raw == nil || self.raw is NSNull }

    /// A mapping with its keys as strings (YAML allows `200:` and `'200':`; both read as "200").
    var dictionary: [String: Any]? {
        if let strings = self.raw as? [String: Any] { return strings }
        guard let mapping = self.raw as? [AnyHashable: Any] else { return nil }
        var result: [String: Any] = [:]
        for (key, value) in mapping { result["\(key.base)"] = value }
        return result
    }

    subscript(key: String) -> YAMLValue { YAMLValue(self.dictionary?[key]) }

    subscript(index: Int) -> YAMLValue {
        let items = self.array
        return items.indices.contains(index) ? items[index] : YAMLValue(nil)
    }

    var keys: [String] { self.dictionary.map { $0.keys.sorted() } ?? [] }
    var array: [YAMLValue] { (self.raw as? [Any])?.map { YAMLValue($0) } ?? [] }
    var string: String? { self.raw as? String }
    var bool: Bool? { self.raw as? Bool }

    var int: Int? {
        if let int = self.raw as? Int { return int }
        if let double = self.raw as? Double, double == double.rounded() { return Int(double) }
        return nil
    }

    var double: Double? {
        if let double = self.raw as? Double { return double }
        if let int = self.raw as? Int { return Double(int) }
        return nil
    }

    /// Strings of a sequence (non-strings skipped).
    var strings: [String] { self.array.compactMap(\.string) }

    /// The value as JSONSerialization takes it: string keys, `NSNull` for null.
    var json: Any {
        if let dictionary = self.dictionary { return dictionary.mapValues { YAMLValue($0).json } }
        if let items = self.raw as? [Any] { return items.map { YAMLValue($0).json } }
        return self.raw ?? NSNull()
    }

    var description: String { self.raw.map { "\($0)" } ?? "<missing>" }
}
