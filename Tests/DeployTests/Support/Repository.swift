import Foundation
import Yams

/// The repository's files, found from this source file's path (tests run from any directory).
enum Repository {
    /// The repository root: this file is `Tests/DeployTests/Support/Repository.swift`.
    static let root: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .path

    static func path(_ relative: String) -> String { root + "/" + relative }

    static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: self.path(relative), encoding: .utf8)
    }

    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: self.path(relative))))
    }

    /// The one YAML document in a file.
    static func yaml(_ relative: String) throws -> YAMLValue {
        YAMLValue(try Yams.load(yaml: self.text(relative)))
    }

    /// Every document of a (multi-document) YAML file.
    static func yamlDocuments(_ relative: String) throws -> [YAMLValue] {
        try Yams.load_all(yaml: self.text(relative)).map { YAMLValue($0) }
    }

    /// Folders never searched besides hidden ones: local media, JavaScript packages.
    static let skippedFolders: Set<String> = ["data", "node_modules"]

    /// Every `*.yaml`, `*.yml` and `*.json` file in the repository (relative paths, sorted), outside build products.
    static func dataFiles() -> [String] {
        var result: [String] = []
        var pending = [""]
        let files = FileManager.default
        while let folder = pending.popLast() {
            let absolute = folder.isEmpty ? root : self.path(folder)
            guard let names = try? files.contentsOfDirectory(atPath: absolute) else { continue }
            for name in names {
                let relative = folder.isEmpty ? name : folder + "/" + name
                var isFolder: ObjCBool = false
                guard files.fileExists(atPath: self.path(relative), isDirectory: &isFolder) else { continue }
                if isFolder.boolValue {
                    // Hidden folders hold tools' state (.git, .build, .swiftpm, .schemathesis), not the project's files.
                    if !self.skippedFolders.contains(name), !name.hasPrefix(".") { pending.append(relative) }
                } else if name.hasSuffix(".yaml") || name.hasSuffix(".yml") || name.hasSuffix(".json") {
                    result.append(relative)
                }
            }
        }
        return result.sorted()
    }

    /// Every `*.swift` file under `folder` (relative paths).
    static func swiftFiles(under folder: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: self.path(folder)) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { folder + "/" + $0 }.sorted()
    }
}
