/// A unified line diff for test failure messages: `---`/`+++` headers, `@@` hunks, context lines.
///
/// Exact (longest common subsequence) when the differing middle of the two texts is small enough;
/// beyond that it shows the middle as one replaced block, which still points at the first
/// difference. Control characters other than tab are shown as `\u{…}` so that a stray `\r` or a
/// missing final newline is visible.
public enum LineDiff {
    /// - Parameters:
    ///   - context: unchanged lines shown around each change.
    ///   - maxLines: the diff is cut after this many lines, with a note saying how many were left out.
    public static func unified(
        expected: String, actual: String, expectedLabel: String = "expected", actualLabel: String = "actual",
        context: Int = 3, maxLines: Int = 200
    ) -> String {
        let old = lines(of: expected)
        let new = lines(of: actual)
        let ops = editScript(old, new)
        var out = ["--- \(expectedLabel)", "+++ \(actualLabel)"]
        let changed = ops.indices.filter { if case .equal = ops[$0] { false } else { true } }
        guard let firstChange = changed.first else { return out.joined(separator: "\n") + "\n" }

        // Group changes whose context would touch into one hunk.
        var groups: [(first: Int, last: Int)] = [(firstChange, firstChange)]
        for index in changed.dropFirst() {
            if let last = groups.last?.last, index - last <= 2 * context {
                groups[groups.count - 1].last = index
            } else {
                groups.append((index, index))
            }
        }
        // Line numbers before each op, so hunk headers can be computed from any op index.
        var oldLine = [Int](repeating: 0, count: ops.count + 1)
        var newLine = [Int](repeating: 0, count: ops.count + 1)
        for (index, op) in ops.enumerated() {
            oldLine[index + 1] = oldLine[index] + (op.consumesOld ? 1 : 0)
            newLine[index + 1] = newLine[index] + (op.consumesNew ? 1 : 0)
        }
        for group in groups {
            let start = max(0, group.first - context)
            let end = min(ops.count, group.last + 1 + context)
            let oldCount = oldLine[end] - oldLine[start]
            let newCount = newLine[end] - newLine[start]
            out.append(
                "@@ -\(oldCount == 0 ? oldLine[start] : oldLine[start] + 1),\(oldCount) "
                    + "+\(newCount == 0 ? newLine[start] : newLine[start] + 1),\(newCount) @@")
            for op in ops[start..<end] {
                switch op {
                case .equal(let line): out.append(" " + visible(line))
                case .delete(let line): out.append("-" + visible(line))
                case .insert(let line): out.append("+" + visible(line))
                }
            }
        }
        if out.count > maxLines {
            let omitted = out.count - maxLines
            out.removeLast(omitted)
            out.append("… \(omitted) more diff lines")
        }
        return out.joined(separator: "\n") + "\n"
    }

    enum Op: Equatable {
        case equal(String)
        case delete(String)
        case insert(String)

        var consumesOld: Bool {
            if case .insert = self { false } else { true }
        }

        var consumesNew: Bool {
            if case .delete = self { false } else { true }
        }
    }

    /// Lines without their `\n`; a last line lacking one carries a marker, so that a missing
    /// final newline shows up as a changed line.
    static func lines(of text: String) -> [String] {
        guard !text.isEmpty else { return [] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" {
            lines.removeLast()
        } else if let last = lines.popLast() {
            lines.append(last + noNewlineMarker)
        }
        return lines
    }

    static let noNewlineMarker = "\u{0}no-newline"

    /// Common prefix and suffix are matched directly; the middle by LCS when it is at most
    /// `cellLimit` table cells, else as one deleted block followed by one inserted block.
    static func editScript(_ old: [String], _ new: [String], cellLimit: Int = 4_000_000) -> [Op] {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
            old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
        {
            suffix += 1
        }
        let a = Array(old[prefix..<(old.count - suffix)])
        let b = Array(new[prefix..<(new.count - suffix)])
        var ops = old[..<prefix].map(Op.equal)
        if a.count * b.count <= cellLimit {
            ops += lcsScript(a, b)
        } else {
            ops += a.map(Op.delete) + b.map(Op.insert)
        }
        ops += old[(old.count - suffix)...].map(Op.equal)
        return ops
    }

    private static func lcsScript(_ a: [String], _ b: [String]) -> [Op] {
        let n = a.count
        let m = b.count
        guard n > 0, m > 0 else { return a.map(Op.delete) + b.map(Op.insert) }
        // lengths[i * (m + 1) + j] = LCS length of a[i...] and b[j...].
        var lengths = [Int32](repeating: 0, count: (n + 1) * (m + 1))
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                lengths[i * (m + 1) + j] =
                    a[i] == b[j]
                    ? lengths[(i + 1) * (m + 1) + j + 1] + 1
                    : max(lengths[(i + 1) * (m + 1) + j], lengths[i * (m + 1) + j + 1])
            }
        }
        var ops: [Op] = []
        var i = 0
        var j = 0
        while i < n, j < m {
            if a[i] == b[j] {
                ops.append(.equal(a[i]))
                i += 1
                j += 1
            } else if lengths[(i + 1) * (m + 1) + j] >= lengths[i * (m + 1) + j + 1] {
                ops.append(.delete(a[i]))
                i += 1
            } else {
                ops.append(.insert(b[j]))
                j += 1
            }
        }
        ops += a[i...].map(Op.delete)
        ops += b[j...].map(Op.insert)
        return ops
    }

    private static func visible(_ line: String) -> String {
        var text = line
        var suffix = ""
        if text.hasSuffix(noNewlineMarker) {
            text.removeLast(noNewlineMarker.count)
            suffix = "\n\\ No newline at end of file"
        }
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + suffix
    }
}
