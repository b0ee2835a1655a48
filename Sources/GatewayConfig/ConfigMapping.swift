import Yams

/// A mapping of a config file whose keys have been checked against the allowed ones.
struct ConfigMapping {
    let value: ConfigValue
    /// The entries in file order, each with the line of its key.
    private(set) var entries: [(key: String, keyLine: Int?, value: ConfigValue)]

    /// - Parameter allowed: the keys allowed; nil: any (a mapping of names, like `rate_limits`).
    /// - Throws: for a value that is not a mapping, or every key that is not a plain name or not in `allowed`
    ///   (naming it, the closest allowed key, and the allowed keys).
    init(_ value: ConfigValue, allowed: [String]?) throws(ConfigurationError) {
        var problems = ConfigurationProblems()
        self.init(value, allowed: allowed, problems: &problems)
        try problems.throwIfAny()
    }

    /// The same, recording the problems in `problems` and keeping the valid keys.
    init(_ value: ConfigValue, allowed: [String]?, problems: inout ConfigurationProblems) {
        self.value = value
        self.entries = []
        if value.isNull { return }
        guard case .mapping(let mapping) = value.node else {
            problems.record(value.error("must be a mapping, not \(value.shown)"))
            return
        }
        var entries: [(key: String, keyLine: Int?, value: ConfigValue)] = []
        for (keyNode, valueNode) in mapping {
            let keyValue = value.child(keyNode, key: "?")
            guard case .scalar(let scalar) = keyNode, !keyValue.isNull else {
                problems.record(
                    ConfigurationError(file: value.file, line: keyNode.mark?.line, key: value.path, message: "has a key that is not a name (\(keyValue.shown))")
                )
                continue
            }
            let key = scalar.string
            if let allowed, !allowed.contains(key) {
                let hint = Suggestion.phrase(key, among: allowed)
                problems.record(
                    ConfigurationError(
                        file: value.file, line: keyNode.mark?.line, key: value.child(keyNode, key: key).path,
                        message: "unknown key\(hint); allowed here: \(allowed.joined(separator: ", "))"
                    )
                )
                continue
            }
            entries.append((key, keyNode.mark?.line, value.child(valueNode, key: key)))
        }
        self.entries = entries
    }

    /// The value of `key`, nil when the key is absent (a present key with an empty value is a `null` value).
    subscript(key: String) -> ConfigValue? {
        self.entries.first { $0.key == key }?.value
    }

    /// The value of `key` read by `read`, or nil when the key is absent.
    func read<T>(_ key: String, _ read: (ConfigValue) throws(ConfigurationError) -> T) throws(ConfigurationError) -> T? {
        guard let value = self[key] else { return nil }
        return try read(value)
    }

    /// Sets `target` to the value of `key` read by `read`; leaves it alone when the key is absent.
    func assign<T>(_ target: inout T, _ key: String, _ read: (ConfigValue) throws(ConfigurationError) -> T) throws(ConfigurationError) {
        if let value = self[key] { target = try read(value) }
    }

    /// The value of a key that must be present.
    func required(_ key: String) throws(ConfigurationError) -> ConfigValue {
        guard let value = self[key] else { throw self.value.error("needs the key \(key)") }
        return value
    }
}

/// "Did you mean" for a misspelt key or name.
public enum Suggestion {
    /// ` (did you mean 'port'?)`, or "" when nothing is close.
    static func phrase(_ word: String?, among candidates: [String]) -> String {
        guard let word, let best = self.closest(to: word, among: candidates) else { return "" }
        return " (did you mean '\(best)'?)"
    }

    /// The candidate closest to `word` (case, `_` and `-` ignored) within an edit distance of 2, or a third of its
    /// length; else the only candidate that starts with it (`story-gen` → `story-generation`).
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let target = self.folded(word)
        let extensions = candidates.filter { target.count >= 3 && self.folded($0).starts(with: target) }
        if extensions.count == 1, let only = extensions.first, only != word { return only }
        let scored = candidates.map { ($0, self.distance(target, self.folded($0))) }
        guard let (best, distance) = scored.min(by: { $0.1 < $1.1 }), distance <= max(2, target.count / 3), best != word else { return nil }
        return best
    }

    private static func folded(_ word: String) -> [Character] {
        Array(word.lowercased().filter { $0 != "_" && $0 != "-" })
    }

    /// Levenshtein distance.
    private static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j] + (x == y ? 0 : 1), previous[j + 1] + 1, current[j] + 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
