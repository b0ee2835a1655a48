import Yams

/// Yams refuses a mapping with a repeated key but only gives the first occurrence's position: this finds the key
/// path and the line of the repeat, by renaming the first occurrence and parsing again.
enum DuplicateKey {
    private static let marker = "storygate-first-occurrence-"

    static func error(key: String, firstMark: Mark, text: String, name: String) -> ConfigurationError {
        let fallback = ConfigurationError(file: name, line: firstMark.line, key: key, message: "appears twice in one mapping")
        guard let marked = Self.inserting(Self.marker, into: text, at: firstMark),
            let root = try? Yams.compose(yaml: marked),
            let (path, mapping) = Self.mappingHoldingMarker(root, path: "")
        else { return fallback }
        var lines = mapping.compactMap { keyNode, _ in
            keyNode.string == key || keyNode.string == Self.marker + key ? keyNode.mark?.line : nil
        }
        lines.sort()
        guard lines.count >= 2 else { return fallback }
        let keyPath = path.isEmpty ? key : "\(path).\(key)"
        return ConfigurationError(file: name, line: lines[1], key: keyPath, message: "appears twice in one mapping (first at line \(lines[0]))")
    }

    /// The mapping whose key carries the marker, and its key path.
    private static func mappingHoldingMarker(_ node: Node, path: String) -> (String, Node.Mapping)? {
        switch node {
        case .mapping(let mapping):
            for (keyNode, value) in mapping {
                let key = keyNode.string ?? "?"
                if key.hasPrefix(Self.marker) { return (path, mapping) }
                if let found = Self.mappingHoldingMarker(value, path: path.isEmpty ? key : "\(path).\(key)") { return found }
            }
            return nil
        case .sequence(let sequence):
            for (index, value) in sequence.enumerated() {
                if let found = Self.mappingHoldingMarker(value, path: "\(path)[\(index)]") { return found }
            }
            return nil
        case .scalar, .alias:
            return nil
        }
    }

    /// `text` with `insertion` at `mark` (after an opening quote, so a quoted key stays quoted).
    private static func inserting(_ insertion: String, into text: String, at mark: Mark) -> String? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard mark.line >= 1, mark.line <= lines.count else { return nil }
        var scalars = Array(lines[mark.line - 1].unicodeScalars)
        var column = mark.column - 1
        guard column >= 0, column < scalars.count else { return nil }
        if scalars[column] == "\"" || scalars[column] == "'" { column += 1 }
        scalars.insert(contentsOf: insertion.unicodeScalars, at: column)
        var line = String.UnicodeScalarView()
        line.append(contentsOf: scalars)
        lines[mark.line - 1] = String(line)
        return lines.joined(separator: "\n")
    }
}
