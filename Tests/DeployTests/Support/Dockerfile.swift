import Foundation

/// A Dockerfile read as instructions: continuation lines joined, comments dropped, each instruction tagged with
/// its build stage (0 for the ARGs before the first FROM).
struct Dockerfile {
    struct Instruction {
        let keyword: String
        let arguments: String
        let stage: Int
    }

    let instructions: [Instruction]

    init(_ text: String) {
        var instructions: [Instruction] = []
        var stage = 0
        var pending = ""
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") || (line.isEmpty && pending.isEmpty) { continue }
            if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
                continue
            }
            let whole = (pending + line).trimmingCharacters(in: .whitespaces)
            pending = ""
            guard !whole.isEmpty else { continue }
            let keyword = String(whole.prefix { !$0.isWhitespace }).uppercased()
            if keyword == "FROM" { stage += 1 }
            let arguments = whole.dropFirst(keyword.count).trimmingCharacters(in: .whitespaces)
            instructions.append(Instruction(keyword: keyword, arguments: arguments, stage: stage))
        }
        self.instructions = instructions
    }

    func all(_ keyword: String, stage: Int? = nil) -> [Instruction] {
        self.instructions.filter { $0.keyword == keyword && (stage == nil || $0.stage == stage) }
    }

    var stageCount: Int { self.instructions.last?.stage ?? 0 }

    /// `ARG NAME=default` before the first FROM.
    var globalArguments: [String: String] {
        var result: [String: String] = [:]
        for instruction in self.all("ARG", stage: 0) {
            let parts = instruction.arguments.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { result[String(parts[0])] = String(parts[1]) }
        }
        return result
    }

    /// The packages of every `apt-get install` in a stage (options skipped).
    func installedPackages(stage: Int) -> Set<String> {
        var packages: Set<String> = []
        for instruction in self.all("RUN", stage: stage) {
            for command in instruction.arguments.components(separatedBy: "&&") {
                let words = command.split(separator: " ").map(String.init)
                guard let install = words.firstIndex(of: "install"), words[..<install].contains("apt-get") else { continue }
                packages.formUnion(words[(install + 1)...].filter { !$0.hasPrefix("-") })
            }
        }
        return packages
    }
}
